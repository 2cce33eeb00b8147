"""Settings from the environment, with embedded defaults when nothing is configured.

``ARENA_HOME`` (default ``~/.local/share/truco-arena``) holds everything the embedded
services keep. ``ARENA_DATABASE_URL`` selects a PostgreSQL server; without it an
embedded PostgreSQL (the ``pgserver`` package) runs with its data under ``ARENA_HOME``,
shared by every arena process on the machine and left running for them.
"""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Settings:
    home: Path
    database_url: str | None  # None: the embedded server under home
    referee_address: str
    admin_token_value: str | None  # None: generated into home

    @staticmethod
    def from_env(env: Mapping[str, str] = os.environ) -> Settings:
        home = Path(env.get("ARENA_HOME") or Path.home() / ".local/share/truco-arena")
        return Settings(
            home=home.expanduser(),
            database_url=env.get("ARENA_DATABASE_URL") or None,
            referee_address=env.get("ARENA_REFEREE_ADDRESS") or "127.0.0.1:50051",
            admin_token_value=env.get("ARENA_ADMIN_TOKEN") or None,
        )

    def admin_token(self) -> str:
        """The organizer's token: ``ARENA_ADMIN_TOKEN``, else one generated once into
        ``ARENA_HOME/admin-token`` (readable by its owner only)."""
        if self.admin_token_value:
            return self.admin_token_value
        path = self.home / "admin-token"
        if not path.exists():
            self.home.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_urlsafe(32) + "\n")
            log.warning("generated the organizer's token into %s", path)
        return path.read_text().strip()

    def database(self) -> str:
        """The connection string: the configured server, or the embedded one (started if
        needed)."""
        if self.database_url:
            return self.database_url
        import pgserver  # only where no server is configured

        self.home.mkdir(parents=True, exist_ok=True)
        server = pgserver.get_server(self.home / "pgdata", cleanup_mode=None)
        log.info("using the embedded PostgreSQL in %s", self.home / "pgdata")
        return str(server.get_uri())
