"""A hosted bot's versions through their use cases, on a real PostgreSQL: a submission is
kept once by its hash, one past the bot's caps is refused and leaves nothing behind, and
a judged version becomes the bot's active one, retiring the one before. (Two submissions
at once against the last place: tests/referee/test_hosting_api.py.)"""

from __future__ import annotations

import pytest

from arena.domain.versions import Caps, Manifest
from arena.errors import Exhausted, NotFound
from arena.hosted.archive import check
from arena.store.store import Store
from arena.usecases.versions import judge, submit
from tests.hosted.test_archive import BOT, tar

MANIFEST = Manifest("python", "bot.py")


def kept_archives(store: Store) -> int:
    with store.pool.connection() as conn:
        row = conn.execute("SELECT count(*) AS n FROM bot_archives").fetchone()
    assert row is not None
    return int(row["n"])


def test_a_submission_is_kept_once_and_numbered(store: Store) -> None:
    store.register_bot("alpha")
    data = tar(BOT)
    first, new = submit(store, "alpha", MANIFEST, data, check(data, MANIFEST))
    assert new and first.number == 1 and first.status == "checking"
    again, new = submit(store, "alpha", MANIFEST, data, check(data, MANIFEST))
    assert not new and again == first
    other = tar(BOT | {"n": b"2"})
    second, new = submit(store, "alpha", MANIFEST, other, check(other, MANIFEST))
    assert new and second.number == 2 and kept_archives(store) == 2
    with pytest.raises(NotFound, match="no bot named 'zeca'"):
        submit(store, "zeca", MANIFEST, data, check(data, MANIFEST))


def test_a_submission_past_the_caps_is_refused_and_keeps_nothing(store: Store) -> None:
    store.register_bot("alpha")
    data = tar(BOT)
    submit(store, "alpha", MANIFEST, data, check(data, MANIFEST))
    other = tar(BOT | {"n": b"2"})
    with pytest.raises(Exhausted, match="1 versions"):
        submit(store, "alpha", MANIFEST, other, check(other, MANIFEST), Caps(versions=1))
    small = check(other, MANIFEST)
    with pytest.raises(Exhausted, match="bytes of archives"):
        submit(store, "alpha", MANIFEST, other, small, Caps(archive_bytes=small.size))
    assert len(store.versions("alpha")) == 1 and kept_archives(store) == 1


def test_a_judged_version_is_active_and_retires_the_one_before(store: Store) -> None:
    store.register_bot("alpha")
    rows = []
    for k in range(2):
        data = tar(BOT | {"n": bytes([k])})
        rows.append(submit(store, "alpha", MANIFEST, data, check(data, MANIFEST))[0])
    assert judge(store, rows[0].id).status == "active"
    assert judge(store, rows[1].id, "2 timeouts in check-2-1").status == "rejected"
    assert judge(store, rows[1].id).status == "active"
    assert [v.status for v in store.versions("alpha")] == ["active", "retired"]
