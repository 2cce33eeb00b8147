"""The forms the pages post (signing in, playing a bot): where they may come from and
how much of them is read."""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.requests import Request

from arena.errors import Forbidden, Invalid

FORM_BYTES = 4096  # the most of a form's body that is read


def same_site(request: Request) -> bool:
    """Whether a POST comes from a page of this site: the browser says so in
    Sec-Fetch-Site, or (an older one) in Origin; a script sending neither is no page of
    another site's (a forged form always carries one or the other)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("origin")
    return origin is None or origin == f"{request.url.scheme}://{request.url.netloc}"


async def body(request: Request) -> bytes:
    """A form's body, at most FORM_BYTES of it (a token is 43 characters)."""
    read = b""
    async for part in request.stream():
        read += part
        if len(read) > FORM_BYTES:
            raise Invalid(f"a form is at most {FORM_BYTES} bytes")
    return read


async def fields(request: Request, what: str) -> dict[str, str]:
    """The fields of a form of this site (Forbidden from another site's page), each one's
    first value, stripped; ``what`` names the form in the refusal."""
    if not same_site(request):
        raise Forbidden(f"{what} from this site's own pages")
    parsed = parse_qs((await body(request)).decode("utf-8", "replace"))
    return {name: values[0].strip() for name, values in parsed.items()}
