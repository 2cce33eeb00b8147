"""A bot's owner on the web (docs/web.md, "Signing in"): the sign-in form and what its
cookie holds, the header for scripts, the form refused from another site, sign-out, a
rotated token's cookie worthless; the owner's view of its own matches only (a sealed twin
stays sealed), its processes' logs linked from the replay and for it alone, and the link
to its records on its own bot's page. The replay step for step in Chromium, against the
organizer's record, is tests/system/test_owners.py's."""

from __future__ import annotations

import io
import json
from typing import Any
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from arena.domain.tournament import Definition
from arena.domain.versions import Manifest
from arena.engine import Rules, public_record
from arena.hosted.archive import check
from arena.store.store import Store
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from arena.usecases.versions import submit
from arena.web import create_app
from arena.web.app import OWNER_COOKIE
from tests.hosted.test_archive import BOT, tar
from tests.webdata import ORGANIZER, fill, played, start_run

FORM = {"content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin"}


@pytest.fixture
def site(store: Store) -> tuple[TestClient, dict[str, str], Any]:
    arena = fill(store)
    tokens = {name: store.rotate_token(name)[1] for name in ("alpha", "beta")}
    return TestClient(create_app(store, organizer_token=ORGANIZER)), tokens, arena


def sign_in(client: TestClient, token: str, **headers: str) -> Any:
    body = f"token={token}&next=/matches/m-0"
    return client.post("/sign-in", content=body, headers=FORM | headers, follow_redirects=False)


def test_a_bots_token_signs_in_by_the_form_and_out_again(site: Any) -> None:
    client, tokens, arena = site
    form = client.get("/sign-in")
    assert form.status_code == 200 and 'method="post"' in form.text
    assert "form-action 'self'" in form.headers["content-security-policy"]
    signed = sign_in(client, tokens["alpha"])
    assert signed.status_code == 303 and signed.headers["location"] == "/matches/m-0"
    cookie = signed.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "secure" not in cookie
    assert tokens["alpha"].lower() not in cookie  # a MAC of the token's hash, not the token
    seen = client.get("/api/matches/m-0").json()
    assert seen["seats"] == [0] and seen["organizer"] is False  # alpha sits at seat 0
    assert client.get("/api/matches/m-0/record").json() == public_record(arena.records["m-0"], [0])
    assert "alpha's owner" in client.get("/matches/m-0").text
    client.get("/sign-out")
    assert client.get("/api/matches/m-0").json()["seats"] == []
    assert client.get("/api/matches/m-0/record").json() == public_record(arena.records["m-0"])


def test_the_owner_sees_its_own_seats_and_only_in_its_own_matches(site: Any) -> None:
    client, tokens, arena = site
    beta = {"Authorization": f"Bearer {tokens['beta']}"}
    assert client.get("/api/matches/m-0", headers=beta).json()["seats"] == [1]
    assert client.get("/api/matches/m-2", headers=beta).json()["seats"] == []  # alpha v gamma
    record = client.get("/api/matches/m-2/record", headers=beta).json()
    assert record == public_record(arena.records["m-2"])
    team = client.get("/api/matches/m-team", headers=beta).json()
    assert team["seats"] == [1, 3]  # a bot at two seats: both its own
    for step in team["steps"]:
        for seat in step["seats"]:
            assert all((c is not None) == (seat["seat"] in (1, 3)) for c in seat["held"])


def test_the_form_refuses_another_sites_post_and_a_wrong_token(site: Any) -> None:
    client, tokens, _ = site
    forged = sign_in(client, tokens["alpha"], **{"sec-fetch-site": "cross-site"})
    assert forged.status_code == 403 and OWNER_COOKIE not in client.cookies
    headers = {"sec-fetch-site": "", "origin": "https://evil.example"}
    old = client.post("/sign-in", content=f"token={tokens['alpha']}", headers=FORM | headers)
    assert old.status_code == 403
    wrong = sign_in(client, "guessed")
    assert wrong.status_code == 403 and "not a token of this arena" in wrong.text
    assert "guessed" not in wrong.text
    too_long = client.post("/sign-in", content="token=" + "x" * 5000, headers=FORM)
    assert too_long.status_code == 400


def test_the_form_goes_back_to_a_page_of_this_site_only(site: Any) -> None:
    client, tokens, _ = site
    assert 'href="/sign-in?next=/bots/alpha"' in client.get("/bots/alpha").text
    for away in ("//evil.example/x", "/\\evil.example/x", "https://evil.example/"):
        body = f"token={tokens['alpha']}&next={quote(away)}"
        signed = client.post("/sign-in", content=body, headers=FORM, follow_redirects=False)
        assert signed.status_code == 303 and signed.headers["location"] == "/", away


def test_the_organizers_token_signs_in_by_the_form_too(site: Any) -> None:
    client, _, _ = site
    assert sign_in(client, ORGANIZER).status_code == 303
    assert client.get("/api/matches/m-0").json()["organizer"] is True
    assert OWNER_COOKIE not in client.cookies


def test_a_rotated_token_makes_the_cookie_worthless(site: Any, store: Store) -> None:
    client, tokens, _ = site
    sign_in(client, tokens["alpha"])
    assert client.get("/api/matches/m-0").json()["seats"] == [0]
    store.rotate_token("alpha")
    assert client.get("/api/matches/m-0").json()["seats"] == []
    client.cookies.set(OWNER_COOKIE, "alpha:" + "0" * 64)  # forged
    assert client.get("/api/matches/m-0").json()["seats"] == []


def test_the_cookie_is_secure_over_https(store: Store) -> None:
    fill(store)
    token = store.rotate_token("alpha")[1]
    client = TestClient(create_app(store, organizer_token=ORGANIZER), base_url="https://arena")
    signed = client.post("/sign-in", content=f"token={token}", headers=FORM, follow_redirects=False)
    assert "secure" in signed.headers["set-cookie"].lower()


def test_a_sealed_twin_stays_sealed_for_its_owner(store: Store) -> None:
    for name in ("ana", "bia"):
        store.register_bot(name)
    token = store.rotate_token("ana")[1]
    definition = Definition("d", bots=("ana", "bia"), matches=2, duplicate=True, trusted=True)
    _, ids = start_run(store, definition)
    found = store.match(ids[0])
    assert found is not None and found[0].twin is not None
    store.set_status(ids[0], "running")
    record_match(store, ids[0], played(Rules(), found[1], 5))
    client = TestClient(create_app(store, organizer_token=ORGANIZER))
    seen = client.get(f"/api/matches/{ids[0]}", headers={"Authorization": f"Bearer {token}"})
    assert seen.json()["sealed"] and seen.json()["steps"] == [] and seen.json()["seats"] == []
    record = client.get(
        f"/api/matches/{ids[0]}/record", headers={"Authorization": f"Bearer {token}"}
    )
    assert record.status_code == 403


def test_the_replay_links_the_owners_process_log(store: Store) -> None:
    store.register_bot("ana")
    store.register_bot("bia")
    tokens = {name: store.rotate_token(name)[1] for name in ("ana", "bia")}
    data = tar(BOT)
    manifest = Manifest("python", "bot.py")
    submit(store, "ana", manifest, data, check(io.BytesIO(data), manifest))
    hosted = store.bot("ana@1")
    bia = store.bot("bia")
    assert hosted is not None and bia is not None
    request_match(store, "m-h", Rules(), [hosted.id, bia.id], seed=3)
    record_match(store, "m-h", played(Rules(), ["ana@1", "bia"], 3))
    store.keep_log("m-h", hosted.id, "hello from ana@1\n", 0)
    client = TestClient(create_app(store, organizer_token=ORGANIZER))
    ana, bia_ = ({"Authorization": f"Bearer {tokens[n]}"} for n in ("ana", "bia"))

    page = client.get("/matches/m-h", headers=ana).text
    assert 'href="/matches/m-h/log"' in page
    log = client.get("/matches/m-h/log", headers=ana)
    assert log.status_code == 200 and "hello from ana@1" in log.text and "status 0" in log.text
    assert client.get("/api/matches/m-h/log", headers=ana).json()["logs"] == [
        {"version": "ana@1", "status": 0, "log": "hello from ana@1\n"}
    ]
    assert 'href="/matches/m-h/log"' not in client.get("/matches/m-h", headers=bia_).text
    assert client.get("/api/matches/m-h/log", headers=bia_).status_code == 404  # not its own
    assert client.get("/api/matches/m-h/log").status_code == 401  # anyone
    organizer = client.get("/api/matches/m-h/log", headers={"Authorization": f"Bearer {ORGANIZER}"})
    assert [x["version"] for x in organizer.json()["logs"]] == ["ana@1"]


def test_the_owner_finds_its_records_on_its_own_bots_page(site: Any) -> None:
    client, tokens, arena = site
    alpha = {"Authorization": f"Bearer {tokens['alpha']}"}
    page = client.get("/bots/alpha", headers=alpha).text
    assert 'data-testid="owner-download"' in page
    assert 'data-testid="owner-download"' not in client.get("/bots/beta", headers=alpha).text
    assert 'data-testid="owner-download"' not in client.get("/bots/alpha").text
    got = client.get("/bots/alpha/export.ndjson?what=records", headers=alpha)
    lines = [json.loads(line) for line in got.text.splitlines()]
    by_id = {x["match"]["id"]: x["record"] for x in lines}
    own = arena.records["m-0"]["seats"].index("alpha")
    assert by_id["m-0"] == public_record(arena.records["m-0"], [own])
    anyone = client.get("/bots/alpha/export.ndjson?what=records").text
    assert anyone != got.text
