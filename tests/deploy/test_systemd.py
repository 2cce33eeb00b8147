"""The shipped systemd units (deploy/systemd/) pass ``systemd-analyze verify`` without a
word of warning, with their ``ExecStart`` pointed at this checkout's ``arena`` (verify
checks that the program exists); they restart on failure, read the environment file, run
as the arena's own user; and the worker's restrictions leave bubblewrap its namespaces."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

UNITS = Path(__file__).parents[2] / "deploy" / "systemd"
SHIPPED_ARENA = "/opt/truco-arena/bin/arena"
# what each unit is verified as: a template (serve, one per node) as an instance of it
NAMES = {
    "arena-serve@.service": "arena-serve@n1.service",
    "arena-worker.service": "arena-worker.service",
    "arena-beat.service": "arena-beat.service",
    "arena-web.service": "arena-web.service",
}
# each of these keeps bwrap from making its sandbox (docs/sandbox.md)
BREAK_BWRAP = (
    "RestrictNamespaces", "PrivateUsers", "SystemCallFilter", "ProtectKernelTunables",
    "ProtectKernelLogs", "ProtectProc", "MemoryDenyWriteExecute", "ProtectHostname",
)  # fmt: skip


def service(path: Path) -> dict[str, list[str]]:
    """The [Service] section of a unit: each key with its values, in order (a key may be
    given more than once: EnvironmentFile=, Environment=)."""
    fields: dict[str, list[str]] = {}
    section = ""
    for line in path.read_text().splitlines():
        if line.startswith("["):
            section = line.strip()
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            fields.setdefault(key.strip(), []).append(value.strip())
    return fields


def test_the_units_are_the_four_processes() -> None:
    assert sorted(p.name for p in UNITS.glob("*.service")) == sorted(NAMES)


@pytest.mark.parametrize("unit", sorted(NAMES))
def test_a_unit_restarts_reads_the_environment_file_and_runs_as_the_arena(unit: str) -> None:
    fields = service(UNITS / unit)
    assert fields["Restart"] == ["on-failure"]
    assert "/etc/truco-arena/arena.env" in fields["EnvironmentFile"]
    assert fields["User"] == fields["Group"] == ["truco-arena"]
    assert fields["StateDirectory"] == ["truco-arena"]
    assert "ARENA_HOME=/var/lib/truco-arena" in fields["Environment"]
    assert fields["KillSignal"] == ["SIGTERM"] and fields["TimeoutStopSec"]
    assert fields["NoNewPrivileges"] == ["yes"]
    assert fields["ExecStart"][0].startswith(f"{SHIPPED_ARENA} ")


def test_the_worker_leaves_bubblewrap_its_namespaces() -> None:
    fields = service(UNITS / "arena-worker.service")
    assert not set(BREAK_BWRAP) & set(fields)
    assert "AF_NETLINK" in fields["RestrictAddressFamilies"][0].split()  # bwrap's loopback
    assert fields["KillMode"] == ["mixed"]  # the worker drains, then its sandboxes go


@pytest.mark.parametrize("unit", sorted(NAMES))
def test_systemd_analyze_verify_says_nothing(unit: str, tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is missing: install systemd (apt-get install systemd)")
    arena = Path(sys.executable).with_name("arena")
    assert arena.exists(), f"{arena}: the checkout's arena command (make install)"
    text = (UNITS / unit).read_text()
    assert SHIPPED_ARENA in text
    (tmp_path / unit).write_text(text.replace(SHIPPED_ARENA, str(arena)))
    verified = subprocess.run(
        [analyze, "verify", "--man=no", str(tmp_path / NAMES[unit])],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    said = (verified.stdout + verified.stderr).strip()
    assert verified.returncode == 0 and said == "", said
