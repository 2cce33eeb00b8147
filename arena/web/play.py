"""Playing a bot yourself (docs/web.md, "Playing a bot yourself"): the pages where a
bot's owner signed in, or a guest where the organizer allows guests (``arena web
--guests``), picks a bot and a preset, and plays one a side in the browser.

The handlers are thin: a match is made by one use case
(:func:`arena.usecases.human.start_human_match`) and sent to the workers, who have the
referee play it as any other; this process holds the person's seat over the bot
protocol (:class:`arena.web.seat.Seat`) and the page reads it. A seat lives in the web
process that made it: at most MAX_SEATS at once here, and a person's pages must reach
this process (one web process, or a proxy that keeps a person on one).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import grpc
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from arena.channel import open_channel
from arena.domain.actors import Viewer, bot_actor
from arena.domain.humans import HUMAN_CLOCK, Person
from arena.domain.identity import BotRef, is_version
from arena.engine import PRESET_NAMES, Rules, quoted
from arena.errors import Exhausted, Forbidden, Invalid, NotFound, Unauthenticated
from arena.store.store import Store
from arena.usecases.human import PER_PERSON, PLAYABLE, set_bot_humans, start_human_match
from arena.web.forms import fields
from arena.web.seat import WAIT_S, Seat

log = logging.getLogger(__name__)

GUEST_COOKIE = "arena_guest"  # ID.MAC: a guest's id, signed
MAX_SEATS = 32  # people's seats this process holds at once; more are refused (429)
KEPT = 64  # seats kept in all, the ended ones for their pages' last look, oldest dropped


@dataclass(frozen=True, slots=True)
class Playing:
    """What the web needs to hold people's seats: the referee to dial (the workers' own,
    the arena's first address), its TLS, a way to hand a match to the workers, and
    whether guests may play."""

    address: str
    send: Callable[[Sequence[str]], None]
    ca_file: str | None = None
    tls: bool = False
    guests: bool = False


class Seats:
    """The people's seats this process holds, by match, bounded (MAX_SEATS playing,
    KEPT in all)."""

    def __init__(self, store: Store, playing: Playing) -> None:
        self.store, self.playing = store, playing
        self.seats: OrderedDict[str, Seat] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()
        self._channel: Any = None

    @property
    def live(self) -> int:
        return sum(not s.over for s in self.seats.values())

    def channel(self) -> grpc.aio.Channel:
        """The one channel to the referee that every seat's stream shares."""
        if self._channel is None:
            p = self.playing
            self._channel = open_channel(p.address, p.ca_file, p.tls, aio=True)
        return self._channel

    def hold(self, seat: Seat) -> None:
        """Start holding ``seat`` (a task of this event loop)."""
        while len(self.seats) >= KEPT:
            ended = next((k for k, s in self.seats.items() if s.over), None)
            if ended is None:
                break
            del self.seats[ended]
        self.seats[seat.match_id] = seat
        task = asyncio.create_task(self._held(seat))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _held(self, seat: Seat) -> None:
        try:
            await seat.hold()
        except Exception:
            log.exception("match %s: the person's seat failed", seat.match_id)
            await seat.end("something went wrong on our side; it is logged")

    def of(self, match_id: str, person: Person | None) -> Seat:
        """The seat of match ``match_id`` when it is ``person``'s."""
        seat = self.seats.get(match_id)
        if seat is None:
            raise NotFound(f"no match {quoted(match_id)} is being played from this server")
        if person != seat.person:
            raise Forbidden(f"match {quoted(match_id)} is another person's to play")
        return seat

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._channel is not None:
            await self._channel.close()


def routes(
    store: Store,
    playing: Playing,
    templates: Jinja2Templates,
    secret: bytes,
    viewer: Callable[[Request], Awaitable[Viewer]],
) -> tuple[list[Route], Callable[[], AbstractAsyncContextManager[None]]]:
    """The play pages' routes, and the lifespan that ends the seats at a stop.
    ``viewer``: who a request is (the application's)."""
    seats = Seats(store, playing)

    def guest_cookie(guest: str) -> str:
        mac = hmac.new(secret, b"arena-web-guest:" + guest.encode(), hashlib.sha256)
        return f"{guest}.{mac.hexdigest()}"

    async def person_of(request: Request) -> tuple[Viewer, Person | None]:
        """Who asks, and the person they play as: a bot's owner, or a guest with a
        cookie of ours where guests may play; None: nobody who may play."""
        who = await viewer(request)
        if who.bot is not None:
            return who, Person(bot=who.bot)
        cookie = request.cookies.get(GUEST_COOKIE, "")
        guest = cookie.partition(".")[0]
        right = guest_cookie(guest)
        if playing.guests and guest and hmac.compare_digest(cookie, right):
            with contextlib.suppress(Invalid):
                return who, Person(guest=guest)
        return who, None

    def refuse_visitors(person: Person | None) -> None:
        """Unauthenticated for a visitor who is no one that may play, where guests may not."""
        if person is None and not playing.guests:
            raise Unauthenticated(
                "to play, sign in with your bot's token at /sign-in (this arena lets no "
                "guests play)"
            )

    def context(request: Request, who: Viewer, page: dict[str, Any]) -> dict[str, Any]:
        return {
            "page": page, "organizer": who.organizer, "owner": who.bot,
            "json_url": "/api" + request.url.path,
        }  # fmt: skip

    def choices(person: Person | None) -> dict[str, Any]:
        """What the form offers ``person`` (in a thread: it reads the store)."""
        others = store.human_opponents()
        own: list[str] = []
        allows = None
        if person is not None and person.bot is not None:
            row = store.bot(person.bot)
            allows = bool(row and row.humans)
            if row is not None and row.active:
                versions = store.versions(person.bot)
                own = [
                    person.bot,
                    *(str(BotRef(person.bot, v.number)) for v in versions if v.status in PLAYABLE),
                ]
        connected = store.presence(list(others) + own[:1])
        return {
            "person": None if person is None else person.words(),
            "guests": playing.guests,
            "own": own,
            "others": [
                {"bot": b, "plays_as": seat, "connected": is_version(seat) or seat in connected}
                for b, seat in others.items()
                if person is None or b != person.bot
            ],
            "allows_humans": allows,
            "presets": list(PRESET_NAMES),
            "clock": HUMAN_CLOCK.to_json(),
            "per_person": PER_PERSON,
        }

    async def play_form(request: Request) -> Response:
        """The form (GET), or a match started from it (POST)."""
        who, person = await person_of(request)
        api = request.url.path.startswith("/api/")
        if request.method == "GET":
            refuse_visitors(person)
            page = await asyncio.to_thread(choices, person)
            if api:
                return JSONResponse(page)
            return templates.TemplateResponse(request, "play.html", context(request, who, page))
        form = await fields(request, "start a match")
        refuse_visitors(person)
        new_guest = None
        if person is None:  # a guest's first match
            new_guest = secrets.token_hex(8)
            person = Person(guest=new_guest)
        if seats.live >= MAX_SEATS:
            raise Exhausted(f"this server plays {MAX_SEATS} people's matches already: try later")
        preset = form.get("preset", "paulista")
        if preset not in PRESET_NAMES:
            raise Invalid(f"preset must be one of {', '.join(PRESET_NAMES)}, not {quoted(preset)}")
        connected = await asyncio.to_thread(store.presence)
        made = await asyncio.to_thread(
            start_human_match, store, person, form.get("opponent", ""), Rules.preset(preset),
            connected,
        )  # fmt: skip
        match_id = made.match.id
        log.info("match %s: %s plays %s", match_id, person, made.opponent)
        try:
            await asyncio.to_thread(playing.send, [match_id])
        except Exception as e:  # the scheduler's sweep sends it later (docs/web.md)
            log.warning("match %s: could not be sent to the workers now: %s", match_id, e)

        async def status() -> str:
            found = await asyncio.to_thread(store.match, match_id)
            return "" if found is None else found[0].status

        seat = Seat(match_id, person, made.seat, made.opponent, made.token, seats.channel, status)
        seats.hold(seat)
        to = f"/play/{quote(match_id)}"
        response: Response = (
            JSONResponse({"match_id": match_id, "url": to}) if api else RedirectResponse(to, 303)
        )
        if new_guest is not None:
            https = request.url.scheme == "https"
            response.set_cookie(
                GUEST_COOKIE, guest_cookie(new_guest), httponly=True, samesite="strict",
                secure=https,
            )  # fmt: skip
        return response

    async def play_match(request: Request) -> Response:
        """A person's match: its page (GET), its state after ``?after=VERSION`` (the
        JSON twin, waiting up to WAIT_S for a newer one), or an action posted (POST)."""
        who, person = await person_of(request)
        api = request.url.path.startswith("/api/")
        seat = seats.of(request.path_params["id"], person)
        if request.method == "POST":
            form = await fields(request, "play")
            request_id = form.get("request", "")
            if not (request_id.isascii() and request_id.isdigit() and len(request_id) < 20):
                raise Invalid(f"request must be the decision's number, not {quoted(request_id)}")
            await seat.act(int(request_id), form.get("action", ""))
            if not api:
                return RedirectResponse(f"/play/{quote(seat.match_id)}", 303)
            return JSONResponse(seat.state())
        if not api:
            page = {"match_id": seat.match_id, "opponent": seat.opponent}
            ctx = context(request, who, page)
            return templates.TemplateResponse(request, "play-match.html", ctx)
        after = request.query_params.get("after", "")
        if after and not (after.isascii() and after.isdigit() and len(after) < 12):
            raise Invalid(f"after must be a version the server gave, not {quoted(after)}")
        state = await seat.next_state(int(after) if after else -1, WAIT_S)
        return JSONResponse(state, headers={"Cache-Control": "no-store"})

    async def humans(request: Request) -> Response:
        """An owner lets people challenge their bot, or stops (POST ``on=1|0``)."""
        who, _ = await person_of(request)
        form = await fields(request, "change your bot's settings")
        if who.bot is None:
            raise Unauthenticated("sign in with your bot's token to change its settings")
        on = form.get("on", "")
        if on not in ("0", "1"):
            raise Invalid(f"on must be 1 or 0, not {quoted(on)}")
        await asyncio.to_thread(set_bot_humans, store, who.bot, on == "1", actor=bot_actor(who.bot))
        if request.url.path.startswith("/api/"):
            return JSONResponse({"bot": who.bot, "humans": on == "1"})
        return RedirectResponse("/play", 303)

    @contextlib.asynccontextmanager
    async def lifespan() -> AsyncIterator[None]:
        try:
            yield
        finally:
            await seats.close()

    made = [
        Route("/play", play_form, methods=["GET", "POST"]),
        Route("/api/play", play_form, methods=["GET", "POST"]),
        Route("/play/humans", humans, methods=["POST"]),
        Route("/api/play/humans", humans, methods=["POST"]),
        Route("/play/{id}", play_match, methods=["GET", "POST"]),
        Route("/api/play/{id}", play_match, methods=["GET", "POST"]),
    ]
    return made, lifespan
