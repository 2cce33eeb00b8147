"""The web pages (``arena web``): leaderboards, bots and match replays, each with a JSON
twin, and the play pages where people play bots (arena/web/play.py).
``create_app(store, organizer_token=...)`` builds the application."""

from arena.web.app import create_app

__all__ = ["create_app"]
