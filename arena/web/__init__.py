"""The web pages (``arena web``): leaderboards, bots and match replays, read-only, each
with a JSON twin. ``create_app(store, organizer_token=...)`` builds the application."""

from arena.web.app import create_app

__all__ = ["create_app"]
