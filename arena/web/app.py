"""The web pages: thin Starlette handlers over the read model (:mod:`arena.read`).

Every page at ``PATH`` has a JSON twin at ``/api/PATH`` holding exactly the dict the page
renders. Every route is a GET but the sign-in form's POST, which only sets a cookie, and
the play pages' (arena/web/play.py, where people play bots: each of their writes is a use
case's); nothing else changes the store. Who reads (:class:`Viewer`) shows a token in the
``Authorization: Bearer TOKEN`` header, or in the cookie that signing in sets (the form
at ``/sign-in``, or any page visited with ``?token=TOKEN``): the organizer (the first
organizer's token or a named organizer's: docs/events.md) sees the cards and the seeds
that are hidden from everyone else, and the action log; a bot's owner (the bot's own
token) sees in its own matches the cards its seats saw, its processes' logs and its
records with its cards. The cookie holds no token and the server keeps no sessions: it
is a MAC, keyed by the first organizer's token, over the token's hash (docs/web.md,
"Signing in"). A wrong token is refused, later and later for an address that keeps
guessing. Errors of the
kinds of :mod:`arena.errors` (and the engine's, for what a request names) are the
visitor's: they become statuses with their reason in one place, the application's
exception handler (:data:`STATUS`); anything else is a bug of ours, a 500 logged once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from arena.domain.actors import ANYONE, FIRST, Viewer, bot_actor
from arena.domain.analyses import DEFAULT_SAMPLES
from arena.domain.rating import WIDE_HALF
from arena.engine import TrucoError, quoted
from arena.errors import (
    Exhausted,
    Exists,
    Forbidden,
    Invalid,
    NotFound,
    NotReady,
    Sealed,
    Unauthenticated,
    Unavailable,
    parse_id,
)
from arena.guard import FailedTokens
from arena.read import actions, bots, matches, ratings, sprts, tournaments
from arena.read.analyses import analyses, bot_losses
from arena.read.exports import Export
from arena.read.live import Followed, followed
from arena.read.replay import teams
from arena.store.base import token_hash
from arena.store.store import Store
from arena.usecases.analyses import ask_analysis
from arena.web import downloads, play
from arena.web.charts import analysis_chart, llr_chart, progress_bar, rating_chart, sparkline
from arena.web.forms import body, fields, same_site
from arena.web.headers import SecurityHeaders
from arena.web.live import Feed, Stream, frame
from arena.web.metering import Exposition, Metering
from arena.web.play import Playing

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
COOKIE = "arena_organizer"
OWNER_COOKIE = "arena_owner"  # NAME:MAC, a bot's owner signed in

Builder = Callable[[Store, Request, Viewer], dict[str, Any] | Export]  # an Export: a download

STATUS: dict[type[Exception], int] = {  # the errors a page answers with their reason
    Invalid: 400,
    TrucoError: 400,  # the engine's: a request's rules, a record that does not parse
    Unauthenticated: 401,
    Forbidden: 403,
    Sealed: 403,
    NotFound: 404,
    Exists: 409,
    NotReady: 409,
    Exhausted: 429,
    Unavailable: 503,
}
TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    409: "Conflict",
    429: "Too many requests",
    500: "Internal error",
    503: "Unavailable",
}
UNAVAILABLE = "the arena's database cannot be reached now; try again later"
BUG = "something went wrong on our side; it is logged, and will be looked into"


def pool_url(pool: str) -> str:
    return "/pools/" + quote(pool)


def bot_url(name: str, pool: str | None = None) -> str:
    return f"/bots/{quote(name)}" + (f"?pool={quote(pool, safe='')}" if pool else "")


def match_url(match_id: str, hand: int | None = None, step: int | None = None) -> str:
    url = f"/matches/{quote(match_id)}"
    if hand is not None:
        url += f"?hand={hand}" + (f"&step={step}" if step is not None else "")
    return url


def test_url(test_id: int) -> str:
    return f"/tests/{test_id}"


def tests_url(bot: str | None = None) -> str:
    """The list of tests, of ``bot`` (and its hosted versions) when given."""
    return "/tests" + (f"?bot={quote(bot, safe='')}" if bot else "")


def run_url(run_id: int | None) -> str | None:
    """The page of a tournament run (None for a match outside any run)."""
    return None if run_id is None else f"/runs/{run_id}"


def duration(seconds: float | None) -> str:
    """``1h 05m``, ``3m 20s`` or ``12s``."""
    if seconds is None:
        return ""
    s = max(round(seconds), 0)
    if s >= 3600:
        return f"{s // 3600}h {s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s}s"


def heat(share: float) -> str:
    """The class of a crosstable cell, by its share of wins in tenths: ``heat-0`` (red,
    no wins) through yellow to ``heat-10`` (green). A class, not a style attribute: the
    pages' security policy allows no inline style."""
    return f"heat-{round(10 * share)}"


def _templates() -> Jinja2Templates:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(
        sparkline=sparkline,
        rating_chart=rating_chart,
        llr_chart=llr_chart,
        analysis_chart=analysis_chart,
        default_samples=DEFAULT_SAMPLES,
        progress_bar=progress_bar,
        pool_url=pool_url,
        bot_url=bot_url,
        match_url=match_url,
        run_url=run_url,
        test_url=test_url,
        tests_url=tests_url,
        heat=heat,
        wide_half=WIDE_HALF,
    )
    env.filters["signed"] = lambda x: f"{x:+.0f}" if round(x) else "±0"
    env.filters["when"] = lambda iso: iso[:16].replace("T", " ") if iso else ""
    env.filters["duration"] = duration
    env.filters["elo"] = lambda x: f"{x:g}"  # a test's bound: 0, 2.5, 200
    return Jinja2Templates(env=env)


def create_app(
    store: Store,
    *,
    organizer_token: str,
    failed_tokens: FailedTokens | None = None,
    playing: Playing | None = None,
    analyse: Callable[[str, int], None] | None = None,
) -> Starlette:
    """The web application over ``store``; ``organizer_token`` unlocks hidden cards and
    seeds. Wrong tokens are counted, per address, in ``failed_tokens``. With ``playing``,
    people play bots from its pages (arena/web/play.py); with ``analyse`` (what hands a
    match's analysis to the workers), a match's page asks for its analysis."""
    templates = _templates()
    feed = live_feed(store, templates)
    templates.env.globals["play"] = playing is not None
    templates.env.globals["analysing"] = analyse is not None
    secret = organizer_token.encode()
    cookie_value = hmac.new(secret, b"arena-web-organizer", hashlib.sha256).hexdigest()
    failed = failed_tokens if failed_tokens is not None else FailedTokens()

    def named_cookie(hashed: bytes) -> str:
        """The cookie of a named organizer: signed with the first organizer's token, over
        the hash of their own (a new token, or their removal, makes it worthless)."""
        return hmac.new(secret, b"arena-web-organizer:" + hashed, hashlib.sha256).hexdigest()

    def token_holder(token: str) -> str | None:
        """The organizer whose token this is: the first, or a live named one (a look in
        the store, made in a thread); None: nobody's."""
        if hmac.compare_digest(token.encode(), secret):
            return FIRST
        return store.organizer_for_token(token)

    def cookie_holder(cookie: str) -> str | None:
        """The organizer whose cookie this is (None: nobody's, or one removed since)."""
        if hmac.compare_digest(cookie.encode(), cookie_value.encode()):
            return FIRST
        for row in store.organizers():  # a handful: each is checked against the cookie
            if row.removed_at is None and hmac.compare_digest(
                cookie.encode(), named_cookie(row.token_hash).encode()
            ):
                return row.name
        return None

    def owner_cookie(name: str, hashed: bytes) -> str:
        """The cookie of bot ``name``'s owner: signed with the first organizer's token,
        over the hash of the bot's token (a rotated token makes it worthless)."""
        mac = hmac.new(secret, b"arena-web-owner:" + name.encode() + b":" + hashed, "sha256")
        return f"{name}:{mac.hexdigest()}"

    def token_viewer(token: str) -> Viewer | None:
        """Who a token is: an organizer, a bot's owner; None: nobody (in a thread)."""
        if token_holder(token) is not None:
            return Viewer(organizer=True)
        row = store.bot_for_token(token)
        return None if row is None else Viewer(bot=row.name)

    def owner_of(cookie: str) -> Viewer:
        """The owner whose cookie this is (anyone: a cookie of no bot, or of its old token)."""
        name = cookie.rpartition(":")[0]
        row = store.bot(name) if name else None
        if row is None or row.token_hash is None:
            return ANYONE
        right = owner_cookie(row.name, row.token_hash)
        return Viewer(bot=row.name) if hmac.compare_digest(cookie, right) else ANYONE

    def viewer_of(request: Request) -> Viewer:
        """Who reads (in a thread: it may look in the store)."""
        token = _bearer(request)
        if token is not None:
            return token_viewer(token) or ANYONE
        cookie = request.cookies.get(COOKIE, "")
        if cookie and cookie_holder(cookie) is not None:
            return Viewer(organizer=True)
        owned = request.cookies.get(OWNER_COOKIE, "")
        return owner_of(owned) if owned else ANYONE

    async def wrong_token(
        request: Request, template: str | None, offered: list[str]
    ) -> Response | None:
        """The refusal of a request offering a token that is nobody's, held longer and
        longer for an address that keeps guessing (:mod:`arena.guard`); None when every
        token it offers is right. It says no more than that."""
        if not offered or all(
            [await asyncio.to_thread(token_viewer, token) is not None for token in offered]
        ):
            return None
        address = request.client.host if request.client else ""
        if failed.busy(address):
            return _error(request, template, 429, "too many wrong tokens; try again later")
        log.info("refused a wrong token from %s", address)
        await failed.hold(address)
        return _error(request, template, 403, "not a token of this arena")

    def page(builder: Builder, template: str | None) -> Callable[[Request], Awaitable[Response]]:
        """A handler: the page's dict as HTML (``template``) or as its JSON twin (None)."""

        async def handle(request: Request) -> Response:
            refused = await wrong_token(request, template, _offered(request))
            if refused is not None:
                return refused
            if "token" in request.query_params:
                return await signed_in(
                    request, request.query_params["token"], _without_token(request)
                )
            viewer = await asyncio.to_thread(viewer_of, request)
            organizer = viewer.organizer
            try:
                data = await asyncio.to_thread(builder, store, request, viewer)
            except tuple(STATUS):
                raise  # the visitor's: the exception handler's
            except Exception:
                log.exception("%s failed", request.url.path)
                return _error(request, template, 500, BUG)
            headers = {"Cache-Control": "private, no-store"} if viewer != ANYONE else {}
            if isinstance(data, Export):
                return downloads.response(data, headers)
            if template is None:
                return JSONResponse(data, headers=headers)
            context = {
                "page": data,
                "organizer": organizer,
                "owner": viewer.bot,
                "json_url": "/api" + _here(request),
            }
            return templates.TemplateResponse(request, template, context, headers=headers)

        return handle

    async def signed_in(request: Request, token: str, to: str) -> Response:
        """The cookie of whoever ``token`` (a right one) is, the other one cleared; then
        to ``to``, a page of this site."""
        viewer = await asyncio.to_thread(token_viewer, token)
        response = RedirectResponse(to, 303)
        https = request.url.scheme == "https"
        if viewer is not None and viewer.organizer:
            first = hmac.compare_digest(token.encode(), secret)
            value = cookie_value if first else named_cookie(token_hash(token))
            kept, cleared = COOKIE, OWNER_COOKIE
        else:
            assert viewer is not None and viewer.bot is not None  # wrong_token refused others
            value, kept, cleared = owner_cookie(viewer.bot, token_hash(token)), OWNER_COOKIE, COOKIE
        response.set_cookie(kept, value, httponly=True, samesite="strict", secure=https)
        response.delete_cookie(cleared)
        who = "organizer" if viewer.organizer else f"owner of {viewer.bot}"
        log.info("%s signed in from %s", who, request.client.host if request.client else "?")
        return response

    async def sign_in(request: Request) -> Response:
        """The sign-in form (GET), and its token taken (POST: a form of this site only,
        as the browser's Sec-Fetch-Site or Origin tells)."""
        if request.method == "GET":
            context = {"page": {"error": None}, "organizer": False, "owner": None}
            return templates.TemplateResponse(request, "signin.html", context)
        if not same_site(request):
            return _error(request, "error.html", 403, "sign in from this site's own form")
        form = parse_qs((await body(request)).decode("utf-8", "replace"))
        token = (form.get("token") or [""])[0].strip()
        to = (form.get("next") or [""])[0]
        if not token:
            return _error(request, "error.html", 400, "give a token: your bot's or an organizer's")
        refused = await wrong_token(request, "error.html", [token])
        if refused is not None:
            return refused
        return await signed_in(request, token, to if _own_path(to) else "/")

    async def analysis_asked(request: Request) -> Response:
        """The match page's button (a form of this site): the analysis of the viewer's
        seats (an owner's; the organizer's, every seat) asked for and sent to the workers;
        back to the page's analysis."""
        await fields(request, "ask for an analysis")
        viewer = await asyncio.to_thread(viewer_of, request)
        if analyse is None or not (viewer.organizer or viewer.bot):
            raise Unauthenticated("sign in as the bot's owner or as the organizer to ask")
        match_id = request.path_params["id"]
        actor = FIRST if viewer.bot is None else bot_actor(viewer.bot)
        asked = await asyncio.to_thread(
            ask_analysis, store, match_id, DEFAULT_SAMPLES, viewer.bot, actor=actor
        )
        if asked:  # asked again while pending: nothing more (the sweep sends a lost one)
            await asyncio.to_thread(analyse, match_id, DEFAULT_SAMPLES)
        return RedirectResponse(match_url(match_id) + "#analysis", status_code=303)

    async def refusal(request: Request, error: Exception) -> Response:
        """The status of the error's kind, with its message (the store's own, when it is
        unavailable, goes to the log: it names the database), as a page or as JSON."""
        status = next(code for kind, code in STATUS.items() if isinstance(error, kind))
        if status == 503:
            log.warning("a page could not be read: %s", error)
        template = None if request.url.path.startswith("/api/") else "error.html"
        return _error(request, template, status, UNAVAILABLE if status == 503 else str(error))

    def _error(request: Request, template: str | None, status: int, message: str) -> Response:
        if template is None:
            return JSONResponse({"error": message}, status_code=status)
        context = {
            "page": {"error": message},
            "status": status,
            "title": TITLES[status],
            "organizer": False,
        }
        return templates.TemplateResponse(request, "error.html", context, status_code=status)

    async def front(request: Request) -> Response:
        pool = await asyncio.to_thread(ratings.default_pool, store)
        return RedirectResponse(pool_url(pool), 307)

    async def sign_out(request: Request) -> Response:
        response = RedirectResponse("/", 303)
        response.delete_cookie(COOKIE)
        response.delete_cookie(OWNER_COOKIE)
        return response

    down: list[bool] = [False]  # whether the last check found the database unreachable

    async def healthz(request: Request) -> Response:
        """For a load balancer: 200 ``ok`` when the database answers, else 503 (logged
        once as it goes down, once as it comes back)."""
        try:
            await asyncio.to_thread(store.ping)
        except Unavailable as e:
            if not down[0]:
                log.warning("/healthz: %s", e)
            down[0] = True
            return PlainTextResponse("database unreachable", status_code=503)
        if down[0]:
            log.warning("/healthz: the database answers again")
        down[0] = False
        return PlainTextResponse("ok")

    async def live_stream(request: Request, topic: str) -> Response:
        """A topic of the live feed as server-sent events (arena/web/live.py)."""
        address = request.client.host if request.client else ""
        viewer = feed.watch(topic, address)
        return Stream(feed, viewer, feed.greet(viewer))

    async def match_live(request: Request) -> Response:
        """A match's table as it plays; ``recorded`` (and the end) once it is. A sealed
        duplicate twin is refused, as its record is."""
        match_id = request.path_params["id"]
        address = request.client.host if request.client else ""
        topic = f"match:{match_id}"
        viewer = feed.watch(topic, address)  # first: a record made meanwhile is heard
        try:
            info = await asyncio.to_thread(followed, store, match_id)
            if info is None:
                raise NotFound(f"no match {quoted(match_id)}")
            if info.sealed:
                raise Sealed(
                    f"match {quoted(match_id)} is not shown live: its duplicate twin "
                    f"{info.twin} is dealt the same cards and is not played yet"
                )
        except BaseException:
            feed.leave(viewer)
            raise
        if info.status in ("finished", "failed", "cancelled"):
            feed.leave(viewer)
            return Stream(feed, None, [frame("recorded", {"match": match_id})], ends=True)
        return Stream(feed, viewer, feed.greet(viewer))

    async def live_page(request: Request) -> Response:
        """The matches playing now (of ``?pool=``), as a page or its JSON twin."""
        pool = request.query_params.get("pool") or None
        data = {
            "pool": pool,
            "matches": feed.playing_rows(pool),
            "listening": feed.listening.is_set(),
            "events": "/live/events" + (f"?pool={quote(pool, safe='')}" if pool else ""),
        }
        if request.url.path.startswith("/api/"):
            return JSONResponse(data)
        context = {"page": data, "organizer": False, "owner": None, "json_url": "/api/live"}
        return templates.TemplateResponse(request, "live.html", context)

    async def now_events(request: Request) -> Response:
        pool = request.query_params.get("pool")
        return await live_stream(request, f"now:{pool}" if pool else "now")

    async def run_events(request: Request) -> Response:
        return await live_stream(request, f"run:{request.path_params['id']}")

    async def pool_events(request: Request) -> Response:
        p = request.path_params
        return await live_stream(request, f"pool:{p['preset']}/{p['size']}")

    seats_end: Callable[[], AbstractAsyncContextManager[None]] | None = None

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        """The live feed follows the channel while the application serves; the people's
        seats end as it stops."""
        following = asyncio.create_task(feed.run())
        try:
            if seats_end is None:
                yield
            else:
                async with seats_end():
                    yield
        finally:
            following.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await following

    views: list[tuple[str, Builder, str]] = [
        ("/pools/{preset}/{size}", _leaderboard, "leaderboard.html"),
        ("/bots", _bots, "bots.html"),
        ("/bots/{name}", _bot, "bot.html"),
        ("/matches/{id}", _match, "match.html"),
        ("/tournaments", _tournaments, "tournaments.html"),
        ("/runs/{id}", _run, "run.html"),
        ("/tests", _tests, "tests.html"),
        ("/tests/{id}", _test, "test.html"),
        ("/matches/{id}/log", _process_log, "process-log.html"),
        ("/organizer/log", _log, "log.html"),
    ]
    routes: list[Any] = [
        Route("/", front),
        Route("/healthz", healthz),
        Route("/metrics", Exposition()),  # no secret, no hidden card: docs/operations.md
        Route("/sign-in", sign_in, methods=["GET", "POST"]),
        Route("/sign-out", sign_out),
        Route("/organizer/leave", sign_out),
        Route("/api/matches/{id}/record", page(_record, None)),
        Route("/matches/{id}/live", match_live),
        Route("/matches/{id}/analyse", analysis_asked, methods=["POST"]),
        Route("/live", live_page),
        Route("/api/live", live_page),
        Route("/live/events", now_events),
        Route("/runs/{id}/live", run_events),
        Route("/pools/{preset}/{size}/live", pool_events),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    for path, builder, template in views:
        routes.append(Route(path, page(builder, template)))
        routes.append(Route("/api" + path, page(builder, None)))
    routes += [Route(path, page(builder, "error.html")) for path, builder in downloads.ROUTES]
    if playing is not None:

        async def viewer(request: Request) -> Viewer:
            return await asyncio.to_thread(viewer_of, request)

        def guarded(endpoint: Callable[[Request], Awaitable[Response]]) -> Any:
            """``endpoint``, after the refusal of a wrong token, its bugs a 500 logged
            once, as every page's."""

            async def handle(request: Request) -> Response:
                template = None if request.url.path.startswith("/api/") else "error.html"
                refused = await wrong_token(request, template, _offered(request))
                if refused is not None:
                    return refused
                try:
                    return await endpoint(request)
                except tuple(STATUS):
                    raise  # the visitor's: the exception handler's
                except Exception:
                    log.exception("%s failed", request.url.path)
                    return _error(request, template, 500, BUG)

            return handle

        played, seats_end = play.routes(store, playing, templates, secret, viewer)
        routes += [Route(r.path, guarded(r.endpoint), methods=r.methods) for r in played]

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(Metering), Middleware(SecurityHeaders)],
        exception_handlers=dict.fromkeys(STATUS, refusal),
    )
    app.state.feed = feed  # for the tests and the benchmark, which watch its viewers
    return app


def live_feed(store: Store, templates: Jinja2Templates) -> Feed:
    """The live feed of the pages, drawing tables and lists with their templates' macros."""
    macros = templates.env.get_template("macros.html").module

    def table(info: Followed, state: dict[str, Any]) -> str:
        match = {"teams": teams(info.seats), "seats": info.seats, "pool": info.pool}
        where = f"Hand {state['hand']} · live"
        if info.delay_s:
            where += f", {info.delay_s} s behind"
        return str(macros.table(state, match, where))  # type: ignore[attr-defined]

    def playing(rows: list[dict[str, Any]]) -> str:
        return str(macros.playing(rows))  # type: ignore[attr-defined]

    return Feed(store, table, playing)


def _bearer(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, if the request has one."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def _offered(request: Request) -> list[str]:
    """Every organizer token a request offers: in ``?token=`` and in its header."""
    bearer = _bearer(request)
    return request.query_params.getlist("token") + ([] if bearer is None else [bearer])


def _without_token(request: Request) -> str:
    """The page asked for, without its ``?token=``."""
    query = "&".join(
        f"{quote(k)}={quote(v)}" for k, v in request.query_params.multi_items() if k != "token"
    )
    return request.url.path + (f"?{query}" if query else "")


def _own_path(to: str) -> bool:
    """Whether ``to`` is a path of this site (not ``//host``, nor ``/\\host``, which
    browsers read as another site's)."""
    return to.startswith("/") and not to.startswith("//") and "\\" not in to


def _here(request: Request) -> str:
    path = request.url.path
    return path + (f"?{request.url.query}" if request.url.query else "")


def _int(request: Request, name: str, default: int) -> int:
    """A query parameter that counts from 0, in ASCII digits."""
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    number = parse_id(text)
    if number is None:
        raise Invalid(f"{name} must be a whole number, not {quoted(text)}")
    return number


def _leaderboard(store: Store, request: Request, viewer: Viewer) -> dict[str, Any]:
    p = request.path_params
    retired = request.query_params.get("retired") == "1"
    return ratings.leaderboard(store, f"{p['preset']}/{p['size']}", retired=retired)


def _bots(store: Store, request: Request, viewer: Viewer) -> dict[str, Any]:
    return bots.bots(store)


def _bot(store: Store, request: Request, viewer: Viewer) -> dict[str, Any]:
    q = request.query_params
    data = bots.bot(store, request.path_params["name"], q.get("pool") or None, q.get("page", ""))
    names = [v["name"] for v in data["versions"]]
    data["losses"] = bot_losses(
        store, data["bot"], names, organizer=viewer.organizer, owner=viewer.bot
    )
    return data


def _match(store: Store, request: Request, viewer: Viewer) -> dict[str, Any]:
    hand = max(_int(request, "hand", 1), 1)  # hands count from 1; ?hand=0 was the first
    data = matches.match(
        store, request.path_params["id"], hand, organizer=viewer.organizer, owner=viewer.bot
    )
    last = max(len(data["steps"]) - 1, 0)
    data["step"] = min(_int(request, "step", 0), last)
    m = data["match"]
    waiting = m["status"] in ("scheduled", "running") and not data["sealed"]
    data["live"] = match_url(m["id"]) + "/live" if waiting else None  # docs/web.md, "Live"
    data["analysis"] = analyses(store, m["id"], organizer=viewer.organizer, owner=viewer.bot)
    return data


def _record(store: Store, request: Request, viewer: Viewer) -> dict[str, Any]:
    match_id = request.path_params["id"]
    return matches.record(store, match_id, organizer=viewer.organizer, owner=viewer.bot)


def _tournaments(store: Store, request: Request, viewer: Viewer) -> dict[str, Any]:
    return tournaments.tournaments(store, organizer=viewer.organizer)


def _run(store: Store, request: Request, viewer: Viewer) -> dict[str, Any]:
    page = request.query_params.get("page", "")
    run_id = request.path_params["id"]
    return tournaments.run(store, run_id, organizer=viewer.organizer, page=page)


def _test(store: Store, request: Request, viewer: Viewer) -> dict[str, Any]:
    text = request.path_params["id"]
    number = parse_id(text)
    if number is None:
        raise NotFound(f"no test {quoted(text)}")
    return dict(sprts.sprt(store, number))


def _process_log(store: Store, request: Request, viewer: Viewer) -> dict[str, Any]:
    """What the hosted processes of a match printed, for their owner's eyes (and the
    organizer's)."""
    if viewer == ANYONE:
        raise Unauthenticated(
            "a process's log is for its bot's owner: sign in with the bot's token at /sign-in"
        )
    return matches.process_logs(
        store, request.path_params["id"], organizer=viewer.organizer, owner=viewer.bot
    )


def _tests(store: Store, request: Request, viewer: Viewer) -> dict[str, Any]:
    before = _int(request, "before", 0) or None
    return dict(sprts.tests(store, request.query_params.get("bot") or None, before))


def _log(store: Store, request: Request, viewer: Viewer) -> dict[str, Any]:
    """The action log (docs/events.md), for the organizers' eyes only."""
    if not viewer.organizer:
        raise Unauthenticated(
            "the action log is for the organizers: open this page with ?token=YOUR_TOKEN "
            "(an organizer's), or send it as Authorization: Bearer"
        )
    q = request.query_params
    before = _int(request, "before", 0) or None
    return actions.log_page(store, q.get("subject") or None, q.get("actor") or None, before)
