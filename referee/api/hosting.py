"""The Arena API's hosted bots: a version submitted as an archive (streamed, spooled,
checked, kept), the versions of a bot, one made active, and what their processes
logged."""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from pathlib import Path
from typing import IO, Any

from arena.domain.identity import BotRef, owner_bot
from arena.domain.versions import KEPT, Manifest
from arena.engine import quoted
from arena.errors import Exhausted, Invalid, NotFound
from arena.hosted.archive import Limits, check
from arena.hosted.uploads import UPLOAD_S, Uploads
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import bots
from arena.settings import private_folder
from arena.store.store import Store
from arena.usecases.versions import activate, submit
from referee import messages
from referee.callers import Callers, Dispatch

log = logging.getLogger(__name__)

ARCHIVE_LIMITS = Limits()  # how large a submitted bot may be
STORE_CAPS = KEPT  # what the store keeps of a bot
ADMITTED = (("arena-upload", "admitted"),)  # SubmitBot's initial metadata, once taken


class Hosting:
    """SubmitBot, ListVersions, ActivateVersion and GetBotLogs, on ``store``; a new
    version goes to the workers (``dispatch``) to be checked. Uploads are spooled under
    ``spool`` (a folder made private; default: one of the system's temporary folder), at
    most as many at once as ``uploads`` takes."""

    def __init__(
        self,
        store: Store,
        callers: Callers,
        dispatch: Dispatch | None,
        spool: Path | None,
        uploads: Uploads,
    ) -> None:
        self.store, self.callers, self.dispatch = store, callers, dispatch
        self.spool, self.uploads = spool, uploads

    async def SubmitBot(self, requests: Any, context: Any) -> api.SubmitBotResponse:
        """Reads the manifest, takes the upload if the caps allow (else RESOURCE_EXHAUSTED
        at once, saying which), then spools the archive to a private file up to the size
        limit (refused as soon as it goes over, or when it takes longer than UPLOAD_S),
        checks it whole and keeps it as a version. Once taken, the upload is told so by
        its initial metadata (ADMITTED): a client may wait for it before sending more."""
        first = await anext(aiter(requests), None)
        if first is None or first.WhichOneof("part") != "manifest":
            raise Invalid("the first message must be the manifest")
        m = first.manifest
        actor = await self.callers.owner(context, m.bot)
        manifest = Manifest(m.runtime, m.entry)
        limit = ARCHIVE_LIMITS.archive_bytes
        if m.size > limit:
            raise Invalid(f"archive: {m.size:,} bytes, over the limit of {limit:,}")
        with self.uploads.admitted(m.bot), self._spooled() as spooled:
            await context.send_initial_metadata(ADMITTED)
            try:
                async with asyncio.timeout(UPLOAD_S):
                    await _spool(requests, spooled, limit)
            except TimeoutError:
                raise Exhausted(
                    f"archive: not all sent within {UPLOAD_S:g} s, the time an upload may "
                    "hold its place; send it again from a faster link"
                ) from None
            checked = await asyncio.to_thread(check, spooled, manifest, ARCHIVE_LIMITS)
            done = await asyncio.to_thread(
                submit, self.store, m.bot, manifest, spooled, checked, STORE_CAPS,
                candidate=m.candidate, actor=actor,
            )  # fmt: skip
        row = done.version
        if done.new:
            log.info("bot %s: version %d submitted (%s)", m.bot, row.number, checked.hash[:12])
        if row.status == "checking" and self.dispatch is not None:  # sent again: no harm
            self.dispatch.check(str(BotRef(m.bot, row.number)))
        return api.SubmitBotResponse(
            version=messages.message(api.BotVersion, bots.version(m.bot, row)),
            new=done.new,
            found=done.found,
        )

    async def ActivateVersion(self, request: Any, context: Any) -> api.ActivateVersionResponse:
        ref = BotRef.parse(request.version)
        actor = await self.callers.owner(context, ref.bot)
        row, retired = await asyncio.to_thread(activate, self.store, request.version, actor=actor)
        if retired is not None:
            log.info("bot %s: version %d active, %d retired", ref.bot, row.number, retired.number)
        return api.ActivateVersionResponse(
            version=messages.message(api.BotVersion, bots.version(ref.bot, row)),
            retired="" if retired is None else str(ref.at(retired.number)),
        )

    def _spooled(self) -> IO[bytes]:
        """A new file for an upload, with no name (gone when closed, or when the process
        ends), in a folder only this user may enter."""
        folder = self.spool or Path(tempfile.gettempdir()) / f"truco-arena-uploads-{os.getuid()}"
        return tempfile.TemporaryFile(dir=private_folder(folder))

    async def ListVersions(self, request: Any, context: Any) -> api.ListVersionsResponse:
        rows = await asyncio.to_thread(bots.versions, self.store, request.bot)
        return api.ListVersionsResponse(
            versions=[messages.message(api.BotVersion, v) for v in rows]
        )

    async def GetBotLogs(self, request: Any, context: Any) -> api.GetBotLogsResponse:
        await self.callers.owner(context, owner_bot(request.bot))
        logs = await asyncio.to_thread(self.store.bot_logs, request.match_id, request.bot)
        if not logs:
            raise NotFound(
                f"no log of {quoted(request.bot)} in match {quoted(request.match_id)}: "
                "only hosted versions' processes leave one"
            )
        return api.GetBotLogsResponse(logs=[messages.message(api.BotLog, x) for x in logs])


async def _spool(requests: Any, into: IO[bytes], limit: int) -> None:
    """The archive's chunks written to ``into`` as they come, refused once past
    ``limit`` bytes."""
    size = 0
    async for part in requests:
        if part.WhichOneof("part") != "chunk":
            raise Invalid("after the manifest, only chunks of the archive")
        size += len(part.chunk)
        if size > limit:
            raise Invalid(f"archive: over the limit of {limit:,} bytes")
        into.write(part.chunk)
