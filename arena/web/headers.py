"""The security headers of every response of the web pages, added in one middleware.

The pages load only the site's own stylesheet, script and icon, and draw their charts as
inline SVG without inline style, so the policy allows nothing else: an injected script or
style, a frame around the pages or a form posting to another site is refused by the browser.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",  # /static/replay.js
        "style-src 'self'",  # /static/style.css
        "img-src 'self'",  # the icon
        "connect-src 'self'",  # the live pages' streams (live.js), a seat's view (play.js)
        "base-uri 'none'",
        "form-action 'self'",  # the sign-in form
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


class SecurityHeaders:
    """ASGI middleware: :data:`HEADERS` on every HTTP response the app sends."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)
