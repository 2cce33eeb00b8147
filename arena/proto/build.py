"""Generate ``arena/proto`` from ``proto/`` (``make proto``), or check that the committed
code is what ``proto/`` generates (``make proto-check``, exit 1 on drift).

Needs grpcio-tools, a development dependency pinned in pyproject.toml so that every
machine generates the same bytes.
"""

from __future__ import annotations

import filecmp
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "proto"
TARGET = ROOT / "arena" / "proto"
GENERATED = ("*_pb2.py", "*_pb2.pyi", "*_pb2_grpc.py")


def generate(out: Path) -> None:
    from grpc_tools import protoc  # a development dependency only

    files = sorted(str(p.relative_to(SOURCE)) for p in SOURCE.rglob("*.proto"))
    args = ["protoc", f"-I{SOURCE}", f"--python_out={out}", f"--pyi_out={out}"]
    if protoc.main([*args, f"--grpc_python_out={out}", *files]) != 0:
        raise SystemExit("protoc failed")
    for name in generated_files(out):  # generated imports name the proto package
        path = out / name
        text = path.read_text()
        path.write_text(re.sub(r"^from truco\.", "from arena.proto.truco.", text, flags=re.M))


def generated_files(root: Path) -> list[Path]:
    return sorted(p.relative_to(root) for pattern in GENERATED for p in root.rglob(pattern))


def main() -> int:
    check = "--check" in sys.argv[1:]
    if not check:
        for old in generated_files(TARGET):
            (TARGET / old).unlink()
        generate(TARGET)
        print(f"generated {len(generated_files(TARGET))} files in {TARGET.relative_to(ROOT)}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        generate(fresh)
        want, have = generated_files(fresh), generated_files(TARGET)
        drift = sorted(set(want) ^ set(have))
        drift += [p for p in want if p in have and not filecmp.cmp(fresh / p, TARGET / p, False)]
    for path in drift:
        print(
            f"proto drift: arena/proto/{path} differs from what proto/ generates", file=sys.stderr
        )
    if drift:
        print("run 'make proto' and commit the result", file=sys.stderr)
    return 1 if drift else 0


if __name__ == "__main__":
    sys.exit(main())
