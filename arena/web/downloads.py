"""The web's downloads (docs/exports.md): the exports' files behind the links of a run's
page, a leaderboard and a bot's page, each streamed as it is read
(:mod:`arena.read.exports`). They are pages of :func:`arena.web.app.create_app` like the
others (the same refusals of wrong tokens, the same errors, the organizer signed in gets
the whole records, a bot's owner signed in its records with its own seats' cards), whose
builders here return an export instead of a dict.

| route | the file |
|---|---|
| ``/runs/ID/export.FORMAT[?what=standings|matches|records]`` | a run's |
| ``/pools/PRESET/TEAM_SIZE/export.FORMAT[?retired=1]`` | a pool's leaderboard |
| ``/bots/NAME/export.FORMAT[?what=matches|records&pool=P]`` | a bot's matches |

FORMAT is ``csv`` or ``ndjson``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import StreamingResponse

from arena.domain.actors import Viewer
from arena.engine import quoted
from arena.errors import NotFound, parse_id
from arena.read import exports
from arena.read.exports import Export
from arena.store.store import Store


def response(export: Export, headers: dict[str, str]) -> StreamingResponse:
    """The file, streamed chunk by chunk (its first was read already: what failed has
    failed before this), saved under its name."""
    disposition = {"Content-Disposition": f'attachment; filename="{export.name}"'}
    return StreamingResponse(
        exports.streamed(export.chunks), media_type=export.media_type, headers=headers | disposition
    )


def _run(store: Store, request: Request, viewer: Viewer) -> Export:
    text = request.path_params["id"]
    number = parse_id(text)
    if number is None:
        raise NotFound(f"no tournament run {quoted(text)}")
    q, fmt = request.query_params, request.path_params["format"]
    return exports.run_export(store, number, q.get("what"), fmt, organizer=viewer.organizer)


def _pool(store: Store, request: Request, viewer: Viewer) -> Export:
    p = request.path_params
    retired = request.query_params.get("retired") == "1"
    return exports.pool_export(store, f"{p['preset']}/{p['size']}", p["format"], retired=retired)


def _bot(store: Store, request: Request, viewer: Viewer) -> Export:
    q, p = request.query_params, request.path_params
    name = p["name"]
    return exports.bot_export(
        store, name, q.get("what"), p["format"], q.get("pool") or None,
        organizer=viewer.organizer, owner=viewer.owns(name),
    )  # fmt: skip


ROUTES = [
    ("/runs/{id}/export.{format}", _run),
    ("/pools/{preset}/{size}/export.{format}", _pool),
    ("/bots/{name}/export.{format}", _bot),
]
