"""The web's metrics (arena/metrics.py): every request counted by its route's template
and its status, and timed, in one middleware; and ``/metrics``, prometheus_client's own
ASGI app, as a route of the pages.

A route is named by its template (``/bots/{name}``), which the router leaves in the
request's scope, never by the path asked for: a path names a bot or a match, and anyone
can ask for any number of them. A request that no route takes is ``none``.
"""

from __future__ import annotations

import time

from prometheus_client import make_asgi_app
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.metrics import REQUEST_SECONDS, REQUESTS

NO_ROUTE = "none"


class Metering:
    """ASGI middleware: each HTTP request in :data:`~arena.metrics.REQUESTS` and
    :data:`~arena.metrics.REQUEST_SECONDS`; one that raises counts as a 500."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", NO_ROUTE) if route is not None else NO_ROUTE
            REQUESTS.labels(template, str(status)).inc()
            REQUEST_SECONDS.labels(template).observe(time.perf_counter() - began)


class Exposition:
    """prometheus_client's ASGI app as a route's endpoint (a plain function would be
    taken for a request handler): this process's metrics, as text."""

    def __init__(self) -> None:
        self.app = make_asgi_app()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
