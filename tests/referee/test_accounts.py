"""Named organizers and the action log over the Arena API, on real gRPC and a real
PostgreSQL (docs/events.md): organizers added, listed and removed, a removed one's token
refused at once, and every organizer's and owner's action logged with who did it; then
the same through ``arena organizer``, ``arena log`` and ``arena bot token``, and the log's
web page."""

from __future__ import annotations

import json
import sys
from typing import Any

import grpc
import pytest
from starlette.testclient import TestClient

from arena.cli import main
from arena.proto.truco.v1 import arena_pb2 as api
from arena.web import create_app
from tests.hosted.test_archive import BOT, tar
from tests.referee.test_api import ORGANIZER, arena  # noqa: F401 (the fixture)
from tests.referee.test_hosting_api import bearer, submit
from tests.referee.test_sessions import Client


def code_of(call: Any) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value.code()


def add(stub: Any, name: str, by: Any = ORGANIZER) -> str:
    return str(stub.AddOrganizer(api.AddOrganizerRequest(name=name), metadata=by).token)


def logged(stub: Any, **filters: Any) -> list[tuple[str, str, str]]:
    """The action log oldest first, as (actor, action, subject)."""
    reply = stub.ListActions(api.ListActionsRequest(**filters), metadata=ORGANIZER)
    return [(a.actor, a.action, a.subject) for a in reversed(reply.actions)]


def test_organizers_are_added_listed_and_removed_and_a_removed_token_is_refused_at_once(
    arena: Any,  # noqa: F811
) -> None:
    ref, stub = arena
    token = add(stub, "ana")
    assert len(token) > 30
    ana = bearer(token)
    assert stub.RegisterBot(api.RegisterBotRequest(name="alpha"), metadata=ana).bot.name == "alpha"
    assert add(stub, "bia", by=ana)  # a named organizer adds others
    listed = stub.ListOrganizers(api.ListOrganizersRequest(), metadata=ana).organizers
    assert [(o.name, o.first, o.removed_at) for o in listed] == [
        ("organizer", True, ""), ("ana", False, ""), ("bia", False, ""),
    ]  # fmt: skip
    removed = stub.RemoveOrganizer(api.RemoveOrganizerRequest(name="ana"), metadata=ORGANIZER)
    assert removed.removed_at
    refused = code_of(lambda: stub.RegisterBot(api.RegisterBotRequest(name="beta"), metadata=ana))
    assert refused == grpc.StatusCode.PERMISSION_DENIED  # at once: the next call
    again = add(stub, "ana")  # back, with a token of her own again
    assert again != token
    assert code_of(lambda: stub.ListOrganizers(api.ListOrganizersRequest(), metadata=ana)) == (
        grpc.StatusCode.PERMISSION_DENIED
    )
    assert stub.ListOrganizers(api.ListOrganizersRequest(), metadata=bearer(again)).organizers
    assert ref.store.bot("beta") is None


def test_only_organizers_manage_organizers_and_names_are_checked(arena: Any) -> None:  # noqa: F811
    _, stub = arena
    bot_token = stub.RegisterBot(api.RegisterBotRequest(name="alpha"), metadata=ORGANIZER).token
    request = api.AddOrganizerRequest(name="ana")
    assert code_of(lambda: stub.AddOrganizer(request)) == grpc.StatusCode.UNAUTHENTICATED
    as_bot = bearer(bot_token)
    assert code_of(lambda: stub.AddOrganizer(request, metadata=as_bot)) == (
        grpc.StatusCode.PERMISSION_DENIED
    )
    assert code_of(lambda: stub.ListActions(api.ListActionsRequest(), metadata=as_bot)) == (
        grpc.StatusCode.PERMISSION_DENIED
    )
    for name in ("", "organizer", "Arena", "a b", "-x", "x" * 65, "ana\x00"):
        assert code_of(lambda n=name: add(stub, n)) == grpc.StatusCode.INVALID_ARGUMENT, name
    add(stub, "ana")
    assert code_of(lambda: add(stub, "ana")) == grpc.StatusCode.ALREADY_EXISTS

    def remove(name: str) -> Any:
        request = api.RemoveOrganizerRequest(name=name)
        return stub.RemoveOrganizer(request, metadata=ORGANIZER)

    assert code_of(lambda: remove("organizer")) == grpc.StatusCode.INVALID_ARGUMENT
    assert code_of(lambda: remove("nobody")) == grpc.StatusCode.NOT_FOUND
    remove("ana")
    assert code_of(lambda: remove("ana")) == grpc.StatusCode.NOT_FOUND  # removed once
    assert logged(stub, subject="organizer ana") == [
        ("organizer", "add organizer", "organizer ana"),
        ("organizer", "remove organizer", "organizer ana"),
    ]


def test_every_action_is_logged_naming_who_did_it(arena: Any) -> None:  # noqa: F811
    _, stub = arena
    ana = bearer(add(stub, "ana"))
    token = stub.RegisterBot(api.RegisterBotRequest(name="alpha", owner="zé"), metadata=ana).token
    rotated = stub.RotateToken(api.RotateTokenRequest(name="alpha"), metadata=ORGANIZER).token
    assert token != rotated
    own = bearer(rotated)
    stub.SetBotLadder(api.SetBotLadderRequest(bot="alpha", on=True), metadata=own)
    stub.SetBotLadder(api.SetBotLadderRequest(bot="alpha", on=False), metadata=ana)
    assert submit(stub, "alpha", tar(BOT), own).new
    assert not submit(stub, "alpha", tar(BOT), own).new  # the same again: no new version
    stub.SetLadder(api.SetLadderRequest(pool="paulista/1", on=True, concurrency=3), metadata=ana)
    stub.SetLadder(api.SetLadderRequest(pool="paulista/1", on=False), metadata=ORGANIZER)
    assert logged(stub) == [
        ("organizer", "add organizer", "organizer ana"),
        ("ana", "register", "bot alpha"),
        ("organizer", "rotate token", "bot alpha"),
        ("bot alpha", "ladder opt-in", "bot alpha"),
        ("ana", "ladder opt-out", "bot alpha"),
        ("bot alpha", "submit", "bot alpha"),
        ("ana", "ladder on", "pool paulista/1"),
        ("organizer", "ladder off", "pool paulista/1"),
    ]
    assert logged(stub, actor="bot alpha") == [
        ("bot alpha", "ladder opt-in", "bot alpha"), ("bot alpha", "submit", "bot alpha"),
    ]  # fmt: skip
    assert [a for _, a, _ in logged(stub, subject="pool paulista/1")] == ["ladder on", "ladder off"]
    newest = stub.ListActions(api.ListActionsRequest(limit=2), metadata=ORGANIZER).actions
    assert [a.action for a in newest] == ["ladder off", "ladder on"]  # newest first
    details = [json.loads(a.detail) for a in newest]
    assert details[1]["concurrency"] == 3 and details[1]["clock"]["decision_ms"] == 1000
    older = api.ListActionsRequest(limit=2, before_id=newest[-1].id)
    assert [a.action for a in stub.ListActions(older, metadata=ORGANIZER).actions] == [
        "submit", "ladder opt-out",
    ]  # fmt: skip
    assert all(a.at for a in newest)
    too_many = api.ListActionsRequest(limit=1001)
    assert code_of(lambda: stub.ListActions(too_many, metadata=ORGANIZER)) == (
        grpc.StatusCode.INVALID_ARGUMENT
    )


def test_an_action_refused_leaves_no_entry(arena: Any) -> None:  # noqa: F811
    _, stub = arena
    stub.RegisterBot(api.RegisterBotRequest(name="alpha"), metadata=ORGANIZER)
    again = api.RegisterBotRequest(name="ALPHA")  # taken, whatever its case
    assert code_of(lambda: stub.RegisterBot(again, metadata=ORGANIZER)) == (
        grpc.StatusCode.ALREADY_EXISTS
    )
    nobody = api.RotateTokenRequest(name="nobody")
    assert code_of(lambda: stub.RotateToken(nobody, metadata=ORGANIZER)) == (
        grpc.StatusCode.NOT_FOUND
    )
    assert logged(stub) == [("organizer", "register", "bot alpha")]


# ---- the command line, in this process, against the referee on loopback ----


@pytest.fixture
def cli(
    arena: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Any:
    """``arena ARGS...`` run in this process against the fixture's referee, as the first
    organizer (or with ``token`` as ARENA_ORGANIZER_TOKEN): its exit status and output."""
    ref, _ = arena
    for name in ("ARENA_CA_FILE", "ARENA_TLS", "ARENA_ORGANIZER_TOKEN", "ARENA_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ARENA_REFEREE_ADDRESS", ref.server.address)
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", "organizer-secret")

    def run(*args: str, token: str | None = None) -> tuple[int, str, str]:
        if token is None:
            monkeypatch.delenv("ARENA_ORGANIZER_TOKEN", raising=False)
        else:
            monkeypatch.setenv("ARENA_ORGANIZER_TOKEN", token)
        try:
            code = main(list(args))
        except SystemExit as e:  # the client's report of a refused call
            print(e.code, file=sys.stderr)
            code = 1
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def test_the_cli_adds_lists_and_removes_organizers_and_reads_the_log(cli: Any) -> None:
    code, out, _ = cli("organizer", "add", "ana")
    assert code == 0 and "ARENA_ORGANIZER_TOKEN" in out
    token = out.splitlines()[-1]
    code, out, _ = cli("bot", "register", "alpha", token=token)
    assert code == 0
    code, out, _ = cli("organizer", "list", "--json", token=token)
    listed = json.loads(out)["organizers"]
    assert [(o["name"], o["first"], o["removed_at"]) for o in listed] == [
        ("organizer", True, None), ("ana", False, None),
    ]  # fmt: skip
    code, out, _ = cli("organizer", "list")
    assert out.splitlines()[0].startswith("organizer  the first") and "ana  added" in out
    code, out, _ = cli("log")
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].endswith("  organizer  add organizer  organizer ana")
    assert lines[1].endswith("  ana  register  bot alpha  owner=")
    code, out, _ = cli("log", "--json", "--actor", "ana")
    (entry,) = json.loads(out)["actions"]
    assert {k: entry[k] for k in ("actor", "action", "subject", "detail")} == {
        "actor": "ana", "action": "register", "subject": "bot alpha", "detail": {"owner": ""},
    }  # fmt: skip
    code, out, _ = cli("log", "--subject", "nothing")
    assert code == 0 and out == "no actions logged\n"
    code, out, _ = cli("organizer", "remove", "ana")
    assert code == 0 and "refused" in out
    code, _, err = cli("log", token=token)
    assert code == 1 and "permission_denied" in err
    code, out, _ = cli("organizer", "list")
    assert "removed" in out.splitlines()[1]


def test_bot_token_prints_a_new_token_and_the_old_one_is_refused_at_once(
    arena: Any,  # noqa: F811
    cli: Any,
) -> None:
    ref, stub = arena
    old = stub.RegisterBot(api.RegisterBotRequest(name="alpha"), metadata=ORGANIZER).token
    connected = Client(ref.server.address)
    connected.hello(old)
    assert connected.next().welcome.bot == "alpha"
    code, out, _ = cli("bot", "token", "alpha")
    assert code == 0
    new = out.splitlines()[-1]
    assert len(new) > 30 and new != old
    ended = connected.error()  # the session the old token opened has ended
    assert ended.code() == grpc.StatusCode.UNAUTHENTICATED
    connected.close()
    refused = Client(ref.server.address)
    refused.hello(old)
    assert refused.error().code() == grpc.StatusCode.UNAUTHENTICATED
    refused.close()
    accepted = Client(ref.server.address)
    accepted.hello(new)
    assert accepted.next().welcome.bot == "alpha"
    accepted.close()
    assert logged(stub, subject="bot alpha")[-1] == ("organizer", "rotate token", "bot alpha")
    code, _, err = cli("bot", "token", "nobody")
    assert code == 1 and "no bot named" in err


# ---- the web page of the log ----


def test_the_log_page_shows_the_entries_to_organizers_and_refuses_others(arena: Any) -> None:  # noqa: F811
    ref, stub = arena
    token = add(stub, "ana")
    stub.RegisterBot(api.RegisterBotRequest(name="alpha"), metadata=bearer(token))
    app = create_app(ref.store, organizer_token="organizer-secret")
    anyone = TestClient(app)
    assert anyone.get("/organizer/log").status_code == 401
    assert anyone.get("/api/organizer/log").status_code == 401
    assert "Log</a>" not in anyone.get("/bots").text  # no link to it either
    assert anyone.get("/api/organizer/log", params={"token": "guess"}).status_code == 403
    first = anyone.get("/api/organizer/log", headers={"Authorization": "Bearer organizer-secret"})
    assert first.status_code == 200
    assert [(a["actor"], a["action"], a["subject"]) for a in first.json()["actions"]] == [
        ("ana", "register", "bot alpha"), ("organizer", "add organizer", "organizer ana"),
    ]  # fmt: skip
    named = TestClient(app)  # a named organizer signs in with ?token= and keeps a cookie
    page = named.get("/organizer/log", params={"token": token})
    assert page.status_code == 200 and "register" in page.text and "Log</a>" in page.text
    assert named.get("/organizer/log", params={"actor": "ana"}).status_code == 200
    only = named.get("/api/organizer/log", params={"subject": "organizer ana"}).json()
    assert [a["action"] for a in only["actions"]] == ["add organizer"]
    stub.RemoveOrganizer(api.RemoveOrganizerRequest(name="ana"), metadata=ORGANIZER)
    assert named.get("/organizer/log").status_code == 401  # her cookie is worth nothing now
