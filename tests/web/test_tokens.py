"""Guessing the organizer's token on the web is slowed per address as the referee slows bad
bot tokens (:mod:`arena.guard`): a wrong token, in ``?token=`` or in an ``Authorization:
Bearer`` header, is refused with a 403 held longer and longer; while too many refusals of
one address are held, the next is a 429 at once. The right token is never refused."""

from __future__ import annotations

import asyncio
import contextlib
import time

import httpx2
import pytest
from starlette.testclient import TestClient

from arena import guard
from arena.guard import FailedTokens
from arena.store.store import Store
from arena.web import create_app
from tests.webdata import ORGANIZER

pytestmark = pytest.mark.hostile

DELAY_S = 0.3
PAGE = "/api/bots"


def offer(client: TestClient, token: str, how: str) -> httpx2.Response:
    """Ask for a page offering ``token`` ``how``: in the query or in the header."""
    if how == "query":
        return client.get(PAGE, params={"token": token})
    return client.get(PAGE, headers={"Authorization": f"Bearer {token}"})


@pytest.mark.parametrize("how", ["query", "header"])
def test_wrong_tokens_are_refused_later_and_later_and_the_right_one_at_once(
    store: Store, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.setattr(guard, "FREE_FAILURES", 2)
    monkeypatch.setattr(guard, "FIRST_DELAY_S", DELAY_S)
    monkeypatch.setattr(guard, "MAX_DELAY_S", DELAY_S)
    client = TestClient(create_app(store, organizer_token=ORGANIZER))
    for _ in range(guard.FREE_FAILURES):
        assert offer(client, "guess", how).status_code == 403
    start = time.monotonic()
    held = offer(client, "guess", how)
    assert time.monotonic() - start >= DELAY_S
    assert held.status_code == 403 and held.json() == {"error": "not a token of this arena"}
    right = offer(client, ORGANIZER, how)
    assert right.status_code == 200 and right.json() == {"bots": []}
    assert client.get("/bots", params={"token": "guess"}).status_code == 403  # pages too


class Watched(FailedTokens):
    """The guard of the app, telling the test when it has counted a failure."""

    def __init__(self) -> None:
        super().__init__()
        self.counted = asyncio.Event()

    def delay_s(self, address: str) -> float:
        self.counted.set()
        return super().delay_s(address)


def test_while_refusals_are_held_the_next_wrong_token_is_a_429_and_the_right_one_passes(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "FREE_FAILURES", 0)
    monkeypatch.setattr(guard, "FIRST_DELAY_S", 600.0)  # held until cancelled
    monkeypatch.setattr(guard, "MAX_WAITING", 1)

    async def scenario() -> tuple[int, int, dict[str, object]]:
        failed = Watched()
        app = create_app(store, organizer_token=ORGANIZER, failed_tokens=failed)
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://arena") as client:
            held = asyncio.ensure_future(client.get(PAGE, params={"token": "guess"}))
            await failed.counted.wait()  # its refusal is being held now
            refused = await client.get(PAGE, headers={"Authorization": "Bearer guess"})
            right = await client.get(PAGE, headers={"Authorization": f"Bearer {ORGANIZER}"})
            held.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await held
        return refused.status_code, right.status_code, right.json()

    assert asyncio.run(scenario()) == (429, 200, {"bots": []})


def test_no_token_at_all_is_not_a_failure(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "FREE_FAILURES", 0)
    monkeypatch.setattr(guard, "FIRST_DELAY_S", 600.0)
    failed = FailedTokens()
    client = TestClient(create_app(store, organizer_token=ORGANIZER, failed_tokens=failed))
    assert client.get(PAGE).status_code == 200
    assert client.get(PAGE, headers={"Authorization": "Basic eDp5"}).status_code == 200
    assert len(failed) == 0
