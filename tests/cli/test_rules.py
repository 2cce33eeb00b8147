"""`arena rules list` and `show`, and `arena play`, a whole match at the command line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.common import arena


def test_rules_list_names_every_preset() -> None:
    done = arena("rules", "list")
    assert done.returncode == 0
    for name in ("paulista", "inteligente", "solver", "tradicional", "megajogos"):
        assert name in done.stdout


def test_rules_show_gives_every_parameter_and_its_origin() -> None:
    done = arena("rules", "show", "megajogos", "--json")
    assert done.returncode == 0
    params = json.loads(done.stdout)
    assert params["preset"] == "megajogos" and params["special_raise"] == "forfeit_match"
    table = arena("rules", "show", "tradicional:deck=short24")
    assert table.returncode == 0
    assert "override" in table.stdout and "chosen" in table.stdout
    bad = arena("rules", "show", "paulista:team_size=9")
    assert bad.returncode == 2 and "team_size must be 1 to 4" in bad.stderr


def test_play_plays_a_whole_match_and_writes_a_record_that_replays(tmp_path: Path) -> None:
    path = tmp_path / "play.json"
    done = arena("play", "--seed", "5", "--record", str(path))
    assert done.returncode == 0, done.stderr
    assert "winner: team" in done.stdout
    again = arena("replay", str(path))
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["result"]["winner"] in (0, 1)
