"""A submitted bot's archive: what a bot's folder may hold, its identity, and what
unpacking writes (arena/hosted/archive.py). Archives are built here byte by byte, bad
ones included, as a hostile author would build them."""

from __future__ import annotations

import io
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from arena.errors import Invalid
from arena.hosted.archive import Limits, Manifest, check, members, unpack

BOT = {"bot.py": b"print('hi')\n", "lib/util.py": b"X = 1\n"}
PYTHON = Manifest("python", "bot.py")


def tar(files: dict[str, bytes], *, gz: bool = True, mtime: float = 0.0, extra=()) -> bytes:
    """A tar of ``files`` (paths to contents), then ``extra`` TarInfo entries as given."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz" if gz else "w") as t:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(data), mtime, 0o755 if path == "bot" else 0o644
            t.addfile(info, io.BytesIO(data))
        for info in extra:
            t.addfile(info)
    return out.getvalue()


def entry(name: str, kind: bytes, **fields: object) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    for k, v in fields.items():
        setattr(info, k, v)
    return info


def zipped(files: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            z.writestr(path, data)
        for path, target in (links or {}).items():
            info = zipfile.ZipInfo(path)
            info.create_system, info.external_attr = 3, (0o120777 << 16)
            z.writestr(info, target)
    return out.getvalue()


def test_a_folder_packed_twice_is_one_version() -> None:
    first = check(tar(BOT, mtime=time.time()), PYTHON)
    again = check(tar(BOT, mtime=time.time() + 100), PYTHON)
    as_zip = check(zipped(BOT), PYTHON)
    assert first.hash == again.hash == as_zip.hash
    assert (first.files, first.unpacked) == (2, sum(map(len, BOT.values())))


@pytest.mark.parametrize(
    "change",
    [
        lambda: check(tar(BOT | {"bot.py": b"print('bye')\n"}), PYTHON),
        lambda: check(tar(BOT | {"new.txt": b""}), PYTHON),
        lambda: check(tar(BOT), Manifest("python", "bot.py --fast")),
        lambda: check(tar({"bot": b"#!/bin/sh\n"}), Manifest("exec", "bot")),
    ],
)
def test_any_change_is_a_new_version(change) -> None:
    assert change().hash != check(tar(BOT), PYTHON).hash


@pytest.mark.parametrize(
    ("archive", "manifest", "says"),
    [
        (b"not an archive at all", PYTHON, "not a tar, tar.gz or zip"),
        (tar(BOT)[:60], PYTHON, "archive"),
        (tar({"lib/x.py": b""}), PYTHON, "no file 'bot.py'"),
        (tar(BOT), Manifest("python", "main.py"), "no file 'main.py'"),
        (tar({"run": b"#!/bin/sh\n"}), Manifest("exec", "./run"), "not executable"),
        (tar(BOT, extra=[entry("/etc/cron.d/x", tarfile.REGTYPE)]), PYTHON, "absolute path"),
        (tar(BOT, extra=[entry("../../x", tarfile.REGTYPE)]), PYTHON, "leaves the bot's folder"),
        (tar(BOT, extra=[entry("lib/../../x", tarfile.REGTYPE)]), PYTHON, "leaves"),
        (tar(BOT, extra=[entry("up", tarfile.SYMTYPE, linkname="../..")]), PYTHON, "leaves"),
        (
            tar(BOT, extra=[entry("pw", tarfile.SYMTYPE, linkname="/etc/passwd")]),
            PYTHON,
            "absolute",
        ),
        (tar(BOT, extra=[entry("hard", tarfile.LNKTYPE, linkname="bot.py")]), PYTHON, "hard link"),
        (
            tar(BOT, extra=[entry("null", tarfile.CHRTYPE, devmajor=1, devminor=3)]),
            PYTHON,
            "device",
        ),
        (tar(BOT, extra=[entry("fifo", tarfile.FIFOTYPE)]), PYTHON, "FIFO"),
        (
            tar(
                BOT,
                extra=[entry("d", tarfile.SYMTYPE, linkname="lib"), entry("d/x", tarfile.REGTYPE)],
            ),
            PYTHON,
            "through the link 'd'",
        ),
        (zipped(BOT, {"out": "../../../etc"}), PYTHON, "leaves"),
        (zipped(BOT | {"../evil.py": b""}), PYTHON, "leaves"),
    ],
)
def test_a_bad_archive_is_refused_saying_why(archive: bytes, manifest: Manifest, says: str) -> None:
    with pytest.raises(Invalid, match=says.replace("(", r"\(").replace(".", r"\.")):
        check(archive, manifest)


@pytest.mark.parametrize(
    ("runtime", "entry", "says"),
    [("java", "Bot.class", "runtime: 'java' is not one of python, node, exec"),
     ("python", "", "entry: give the file to run"),
     ("python", "'bot.py", "not a command line")],
)  # fmt: skip
def test_a_bad_manifest_is_refused(runtime: str, entry: str, says: str) -> None:
    with pytest.raises(Invalid, match=says):
        Manifest(runtime, entry)


def test_the_limits_count_what_is_read_not_what_headers_claim() -> None:
    small = Limits(archive_bytes=64 * 1024, unpacked_bytes=1024 * 1024, files=10)
    bomb = zipped({"bot.py": b"", "zeros": bytes(50 * 1024 * 1024)})  # 50 MiB in ~50 KB
    assert len(bomb) < small.archive_bytes
    with pytest.raises(Invalid, match="over 1,048,576 bytes once unpacked"):
        check(bomb, PYTHON, small)
    many = tar({f"f{k}": b"" for k in range(11)} | {"bot.py": b""})
    with pytest.raises(Invalid, match="more than 10 files, folders and links"):
        check(many, PYTHON, small)
    with pytest.raises(Invalid, match="over the limit of 65,536"):
        check(bytes(70_000), PYTHON, small)


def test_unpacking_writes_the_checked_folder_and_makes_links_last(tmp_path: Path) -> None:
    archive = tar(
        {"bot": b"#!/bin/sh\necho hi\n", "lib/util.py": b"X = 1\n"},
        extra=[entry("util", tarfile.SYMTYPE, linkname="lib/util.py")],
    )
    unpack(archive, tmp_path / "v1")
    root = tmp_path / "v1"
    assert (root / "bot").stat().st_mode & 0o777 == 0o755
    assert (root / "lib/util.py").stat().st_mode & 0o777 == 0o644
    assert (root / "util").readlink() == Path("lib/util.py")
    assert (root / "util").read_bytes() == b"X = 1\n"
    assert sorted(m.path for m in members(archive)) == ["bot", "lib/util.py", "util"]


PINNED = {  # computed by arena/hosted/archive.py as it was at 54d1860, before it streamed
    "tar": "3da199e92d13a4fe809f538f485bca5f8ad2c2f5e414ddb243f805bd32c8896a",
    "zip": "36fd8f632015d4adca510c051b66fbafd7430d5efcdcaeff5cbe90eb213d8645",
    "house": "91b01d44c59584f0ab167b299a01ff0ae2465587ff76ac38f5924d785b11a002",
}


def test_a_versions_hash_is_what_it_always_was() -> None:
    """The same folder is the same version as before: a store's versions are found again
    by these hashes (the house bots' own, in every database, among them)."""
    from arena.hosted.house import archive

    files = {
        "bot": b"#!/bin/sh\nexec python3 main.py\n",
        "main.py": b"print('hi')\n",
        "lib/util.py": b"X = 1\n",
        "data/weights.bin": bytes(range(256)) * 1000,
    }
    folders = [entry("lib", tarfile.DIRTYPE, mode=0o755), entry("empty", tarfile.DIRTYPE)]
    link = entry("util", tarfile.SYMTYPE, linkname="lib/util.py")
    packed = tar(files, extra=[folders[0], link, folders[1]])
    assert check(packed, Manifest("exec", "./bot --fast")).hash == PINNED["tar"]
    assert check(zipped(BOT, {"u": "lib/util.py"}), PYTHON).hash == PINNED["zip"]
    assert check(archive("random"), PYTHON).hash == PINNED["house"]
