"""A submitted bot's archive: what a bot's folder may hold, its identity, and what
unpacking writes (arena/hosted/archive.py; the formats read by arena/hosted/formats.py).
Archives are built here byte by byte, bad ones included, as a hostile author would build
them."""

from __future__ import annotations

import io
import re
import tarfile
import time
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.domain.versions import Manifest
from arena.errors import Invalid
from arena.hosted.archive import Limits, MiB, check, members, unpack

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
    ids=lambda value: "archive" if isinstance(value, bytes) else None,  # a gzip holds its time
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


def linked(links: dict[str, str], files: dict[str, bytes] = BOT) -> bytes:
    """A tar of ``files``, then a link for each of ``links`` (path to target)."""
    return tar(files, extra=[entry(p, tarfile.SYMTYPE, linkname=t) for p, t in links.items()])


CHAIN = {f"l{k:02}": f"l{k + 1:02}" for k in range(41)} | {"l41": "bot.py"}  # 42 links

ESCAPES = {  # links whose text stays inside but whose lookup leaves: what the check says
    "the red team's chain": (
        {"a/a/a/l": "../../..", "esc": "a/a/a/l/../../../etc/shadow"},
        "link 'esc': its target leaves the bot's folder (through 'a/a/a/l')",
    ),
    "through a link to its parent": (
        {"a/up": "..", "b": "a/up/.."},
        "link 'b': its target leaves the bot's folder (through 'a/up')",
    ),
    "a link to a link that climbs": (
        {"a/b/top": "../..", "c": "a/b/top", "esc": "c/.."},
        "link 'esc': its target leaves the bot's folder (through 'c')",
    ),
    "past the end of the tree": (
        {"a/up": "..", "n": "a/up/missing/../.."},
        "link 'n': its target leaves the bot's folder (through 'a/up')",
    ),
    "a loop": ({"x": "y", "y": "x"}, "link 'x': its target is a loop of links (through 'y')"),
    "a link to itself": ({"s": "s"}, "link 's': its target is a loop of links"),
    "a link into itself": ({"d": "d/x"}, "link 'd': its target is a loop of links"),
    "more than 40 links": (CHAIN, "link 'l00': its target goes through more than 40 links"),
}


@pytest.mark.hostile
@pytest.mark.parametrize("chain", ESCAPES)
def test_a_link_is_refused_when_its_lookup_leaves_the_folder(chain: str, tmp_path: Path) -> None:
    """Each link is looked up on the whole tree as the kernel would, links met on the way
    followed: refused by the check and by unpacking alike, and unpacking makes no link."""
    links, says = ESCAPES[chain]
    archive = linked(links)
    with pytest.raises(Invalid) as refused:
        check(archive, PYTHON)
    assert str(refused.value) == says
    with pytest.raises(Invalid, match=re.escape(says)):
        unpack(archive, tmp_path / "bot")
    assert not [p for p in (tmp_path / "bot").rglob("*") if p.is_symlink()]


def test_the_red_team_chain_is_refused_in_a_zip_too() -> None:
    with pytest.raises(Invalid, match=re.escape("link 'esc': its target leaves")):
        check(zipped(BOT, ESCAPES["the red team's chain"][0]), PYTHON)


def test_links_that_stay_inside_are_kept_and_followed(tmp_path: Path) -> None:
    inside = {
        "a/a/a/l": "../../..",  # the red team's first link alone: the folder's root
        "here": "a/a/a/l/lib/util.py",
        "chain": "here",
        "lib2": "lib",
        "via": "lib2/util.py",
        "dangling": "nowhere/x",  # past the tree, read as text: inside
        "run.py": "bot.py",
    }
    forty = {k: v for k, v in CHAIN.items() if k not in ("l00", "l01")}  # l02 to l41
    archive = linked(inside | forty)
    assert check(archive, Manifest("python", "run.py")).files == 2  # the entry through a link
    unpack(archive, tmp_path / "bot")
    root = tmp_path / "bot"
    assert (root / "chain").read_bytes() == (root / "via").read_bytes() == BOT["lib/util.py"]
    assert (root / "l02").read_bytes() == BOT["bot.py"]
    assert (root / "dangling").is_symlink() and not (root / "dangling").exists()
    assert check(archive, Manifest("python", "lib2/util.py")).hash  # through a folder's link
    with pytest.raises(Invalid, match="no file 'dangling'"):
        check(archive, Manifest("python", "dangling"))


@pytest.mark.parametrize(
    ("archive", "says"),
    [
        (tar({"a": b"", "a/b": b""}), "path 'a/b': goes through the file 'a'"),
        (tar({"a/b": b"", "bot.py": b""}, extra=[entry("a", tarfile.SYMTYPE, linkname="x")]),
         "path 'a': a link, and a folder of other paths"),
        (tar(BOT, extra=[entry("x" * 5000, tarfile.REGTYPE)]), "longer than 4,096 bytes"),
    ],
)  # fmt: skip
def test_a_tree_that_cannot_be_unpacked_as_checked_is_refused(archive: bytes, says: str) -> None:
    with pytest.raises(Invalid, match=re.escape(says)):
        check(archive, PYTHON)


def zeros(mib: int, files: int = 4, bot: bytes = b"") -> bytes:
    """A tar.gz of bot.py (``bot``) and ``files`` files of zeros, ``mib`` MiB in all:
    some 100 KB."""
    size = (mib << 20) // files
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as t:
        for name, data in [("bot.py", bot)] + [(f"z{k}", bytes(size)) for k in range(files)]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return out.getvalue()


def peak(run: Callable[[], object]) -> tuple[int, str]:
    """The most memory Python held at once while ``run()`` ran, beyond what it held
    before; and what it was refused for, if it was."""
    tracemalloc.start()
    try:
        run()
        refused = ""
    except Invalid as e:
        refused = str(e)
    finally:
        most = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return most, refused


@pytest.mark.hostile
def test_checking_and_unpacking_hold_a_chunk_not_the_files(tmp_path: Path) -> None:
    """120 MiB of files in a 120 KB archive: the check and the unpacking each hold a few
    chunks at a time, whatever the folder unpacks to."""
    archive = zeros(120)
    assert len(archive) < 200_000
    checked: list[Any] = []
    most, refused = peak(lambda: checked.append(check(archive, PYTHON)))
    assert (refused, checked[0].unpacked) == ("", 120 * MiB) and most < 2 * MiB
    most, refused = peak(lambda: unpack(archive, tmp_path / "bot"))
    assert refused == "" and most < 2 * MiB
    assert (tmp_path / "bot/z3").stat().st_size == 30 * MiB


def test_an_archive_is_read_from_a_path_a_file_or_bytes(tmp_path: Path) -> None:
    archive = tar(BOT)
    (tmp_path / "a.tgz").write_bytes(archive)
    with (tmp_path / "a.tgz").open("rb") as f:
        assert check(tmp_path / "a.tgz", PYTHON) == check(f, PYTHON) == check(archive, PYTHON)


def pax_bomb(mib: int) -> bytes:
    """A tar.gz whose one file has a pax header of ``mib`` MiB: some KB, which tarfile
    would read whole into memory."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT) as t:
        info = tarfile.TarInfo("bot.py")
        info.pax_headers = {"comment": "x" * (mib << 20)}
        t.addfile(info, io.BytesIO(b""))
    return out.getvalue()


def many_entries(count: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for k in range(count):
            z.writestr(str(k), b"")
    return out.getvalue()


@pytest.mark.hostile
def test_headers_are_bounded_before_they_are_read() -> None:
    """What an archive says of its files beside their contents is refused past its limit
    before the format's reader takes it in: a tar's pax header, a zip's directory."""
    bomb = pax_bomb(64)
    assert len(bomb) < 200_000
    most, refused = peak(lambda: check(bomb, PYTHON))
    assert refused == "archive: its headers are over the limit of 8,388,608 bytes"
    assert most < 2 * MiB
    crowded = many_entries(50_000)  # zipfile would make 50,000 objects of its directory
    most, refused = peak(lambda: check(crowded, PYTHON, Limits(files=100)))
    assert refused == "archive: more than 100 files, folders and links"
    assert most < 2 * MiB
    with pytest.raises(Invalid, match=r"a zip directory of [0-9,]+ bytes, over the limit of 1,024"):
        check(crowded, PYTHON, Limits(header_bytes=1024))


@pytest.mark.hostile
def test_a_zip_compressed_with_bzip2_is_refused_unread() -> None:
    """zipfile inflates a bzip2 or lzma member whole at each read: 200 MiB come of 177
    bytes. Only stored and deflated members are read."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("bot.py", b"")
        z.writestr("zeros", bytes(200 << 20), compress_type=zipfile.ZIP_BZIP2)
    with pytest.raises(Invalid, match="file 'zeros': compressed with method 12; only stored"):
        check(out.getvalue(), PYTHON)
