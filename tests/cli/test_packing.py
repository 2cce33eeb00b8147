"""What `arena bot submit` packs from a folder: links followed, owners and times dropped,
and a link that leads nowhere (an example folder copied away from the file its link
names) refused with a message that says which link and what to do, not a traceback."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from arena.cli.hosting import packed


def test_a_folder_is_packed_with_its_links_followed(tmp_path: Path) -> None:
    (tmp_path / "common.proto").write_text("syntax = 'proto3';\n")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "index.js").write_text("// a bot\n")
    (bot / "bot.proto").symlink_to("../common.proto")
    with tarfile.open(fileobj=io.BytesIO(packed(bot))) as t:
        members = {m.name: m for m in t.getmembers()}
        assert sorted(members) == ["bot.proto", "index.js"]
        assert members["bot.proto"].isfile()  # the file itself, not a link
        assert {(m.uid, m.mtime) for m in members.values()} == {(0, 0)}
        proto = t.extractfile("bot.proto")
        assert proto is not None and proto.read() == b"syntax = 'proto3';\n"


def test_a_link_that_leads_nowhere_is_named_with_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "index.js").write_text("// a bot\n")
    (tmp_path / "bot.proto").symlink_to("../../../proto/truco/v1/bot.proto")
    with pytest.raises(SystemExit) as e:
        packed(tmp_path)
    message = str(e.value)
    assert message.startswith(f"arena: cannot pack {tmp_path}: ")
    assert "bot.proto is a link to ../../../proto/truco/v1/bot.proto, which does not exist" in (
        message
    )
    assert "copy the file itself in place of the link" in message
