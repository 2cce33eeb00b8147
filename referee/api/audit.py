"""The Arena API's audit (docs/events.md, "The audit"): the organizer's check that
nothing was lost or counted twice, read from the database alone (arena/read/audit.py)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import audit
from arena.store.store import Store
from referee import messages
from referee.callers import Callers

log = logging.getLogger(__name__)


class Audits:
    """Audit, on ``store``: the organizer's."""

    def __init__(self, store: Store, callers: Callers) -> None:
        self.store, self.callers = store, callers

    async def Audit(self, request: Any, context: Any) -> api.AuditResponse:
        await self.callers.organizer(context)
        run_id = request.run if request.HasField("run") else None
        report = await asyncio.to_thread(audit.audit, self.store, run_id)
        if not report["clean"]:
            log.warning("the audit found %d things wrong", len(report["findings"]))
        findings = [messages.message(api.AuditFinding, f) for f in report["findings"]]
        return messages.message(api.AuditResponse, {**report, "findings": findings})
