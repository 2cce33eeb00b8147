# Truco Arena. Every target installs what it needs first: `make test` and `make demo`
# work as the first command on a fresh clone.
.DEFAULT_GOAL := help
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: help install test chromium bubblewrap nginx node-example lint proto proto-check native bench faults demo clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

install: $(STAMP) ## create .venv and install the project with its test tools (idempotent)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "Python 3.11 or newer is needed")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[server,dev]'
	@touch $(STAMP)

# The suite runs on TEST_JOBS processes (pytest-xdist): most of its time is spent waiting
# on servers and bots, so two share a 2-core machine well (22 min -> 11 min here). Every
# test looks only at what it started (its own database, queue, ports and home), so tests
# may run side by side; `make faults` stays on one process for its tallies.
TEST_JOBS ?= 2

test: lint proto-check chromium bubblewrap nginx node-example native ## run the whole test suite (after the linters and the proto check)
	$(PY) -m pytest -n $(TEST_JOBS) --dist worksteal

# Playwright never downloads a browser here: the browser tests drive the system's Chromium,
# and skip (saying what to install) where there is none.
chromium: ## install the browser tests' Chromium (apt-get) when missing and run as root
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing chromium for the browser tests"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; \
	fi

# Hosted bots run only inside a bubblewrap sandbox (docs/sandbox.md): without bwrap they
# are refused, and the sandbox's tests skip.
bubblewrap: ## install bwrap (apt-get) for the hosted bots' sandbox when missing and run as root
	@if ! command -v bwrap >/dev/null && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing bubblewrap for the hosted bots' sandbox"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq >/dev/null && apt-get install -y -qq bubblewrap >/dev/null; \
	fi

# The reverse proxy's test (tests/system/test_proxy.py) runs Debian's nginx in front of the
# arena with deploy/nginx/arena.conf (docs/operations.md); without nginx it skips.
nginx: ## install nginx (apt-get) for the reverse proxy's test when missing and run as root
	@if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing nginx for the reverse proxy's test"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq >/dev/null && apt-get install -y -qq nginx >/dev/null; \
	fi

# The hosted Node.js example carries its gRPC modules in its archive (docs/hosting.md):
# its tests play it in the sandbox once they are installed, and skip, saying so, before.
node-example: ## npm install the hosted Node.js example's modules when npm exists (its tests skip without them)
	@if [ ! -d examples/hosted/node/node_modules ] && command -v npm >/dev/null; then \
		echo "installing the hosted Node.js example's modules (npm install)"; \
		(cd examples/hosted/node && npm install --no-audit --no-fund --loglevel=error >/dev/null) \
			|| echo "npm install failed: the hosted Node.js example's tests will skip"; \
	fi

lint: install ## ruff, and mypy --strict on arena, referee and workers (pyproject lists the exceptions)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy arena referee workers

proto: install ## regenerate arena/proto from proto/
	$(PY) -m arena.proto.build

proto-check: install ## fail when the committed arena/proto differs from what proto/ generates
	$(PY) -m arena.proto.build --check

native: install ## compile the engine with mypyc into build/native (about 2x; used while current; plain Python where it cannot be built)
	@$(PY) -m arena.native --quiet || echo "the engine stays plain Python (no C compiler or Python headers?)"

bench: native ## engine hands/s; referee vs gRPC ping-pong; recordings vs bare SQL; tournaments vs local matches; the ladder vs a tournament, its matchmaker's time; one referee node vs two, and a relay's cost; reads at 1k vs 1M matches; hosted bots' start, cold and warm, their matches/s and CPU against dialing in, and their relay's cost per message; an SPRT on the arena against one played locally; ratings' coverage (pool fit vs online Elo), games to settle, wander, house-bot pools, fit time; live viewers of one match (memory, latency, slow ones cut) and the live feed's cost to the referee
	$(PY) -m tests.bench.engine
	$(PY) -m tests.bench.referee
	$(PY) -m tests.bench.store
	$(PY) -m tests.bench.workers
	$(PY) -m tests.bench.ladder
	$(PY) -m tests.bench.ladder --bot "house:mc --budget-ms 5" --matches 120 --rounds 3
	$(PY) -m tests.bench.cluster
	$(PY) -m tests.bench.reads
	$(PY) -m tests.bench.hosting
	$(PY) -m tests.bench.sprt
	$(PY) -m tests.bench.relay
	$(PY) -m tests.bench.ratings
	$(PY) -m tests.bench.live

faults: install ## attacks (hostile bots, visitors, clocks, impostors), TLS, faults in real runs, load; ends with the tallies
	@rm -f .faults-summary
	ARENA_FAULTS=full ARENA_FAULTS_SUMMARY=.faults-summary $(PY) -m pytest -m "hostile or faults" tests; \
	status=$$?; cat .faults-summary 2>/dev/null; rm -f .faults-summary; exit $$status

demo: install bubblewrap native ## the whole service on embedded defaults: a tournament of house bots, standings, ratings, then a minute of the ladder
	$(VENV)/bin/arena demo

clean: ## remove the virtual environment, caches and the compiled engine
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build/native
