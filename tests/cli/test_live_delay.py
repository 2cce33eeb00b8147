"""A tournament's live delay at the command line: set at creation, changed by an edit,
refused clearly out of range."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pytest

from tests.cli.common import arena


def stored(database: str, name: str) -> dict:
    with psycopg.connect(database) as conn:
        row = conn.execute("SELECT definition FROM tournaments WHERE name = %s", (name,)).fetchone()
    assert row is not None
    return row[0]


@pytest.mark.usefixtures("migrated")  # the CLI migrates only the embedded database
def test_a_tournaments_live_delay_is_set_edited_and_bounded(database: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env |= {"ARENA_HOME": str(tmp_path / "home"), "ARENA_DATABASE_URL": database}
    for bot in ("ana", "bia"):
        assert arena("bot", "register", bot, env=env).returncode == 0
    made = arena(
        "tournament", "create", "cup", "--bots", "ana,bia", "--live-delay-s", "90", env=env
    )
    assert made.returncode == 0, made.stderr
    assert stored(database, "cup")["live_delay_s"] == 90
    edited = arena("tournament", "edit", "cup", "--live-delay-s", "5m", env=env)
    assert edited.returncode == 0, edited.stderr
    assert stored(database, "cup")["live_delay_s"] == 300
    refused = arena("tournament", "edit", "cup", "--live-delay-s", "3601", env=env)
    assert refused.returncode != 0 and "live delay is 0 to 3600 s" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert stored(database, "cup")["live_delay_s"] == 300
