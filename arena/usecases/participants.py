"""A bot's part in the arena, as the organizer decides it (docs/events.md): withdrawn
(from every run not over, or from one), disqualified (its results in those runs voided),
reinstated, or retired. Each is written to the action log with who did it.

The policy: a withdrawn bot's matches not started are cancelled, never played, and count
for nobody (its opponents are given no result for them: a bye); those it played stand. A
disqualified bot's matches in those runs are voided: they count for no table and no
rating (each pool touched is recounted and fitted again on what counts), whether they
were played, playing or to play. A bot not active does not connect, is not scheduled by
the ladders, and enters no run.
"""

from __future__ import annotations

from collections.abc import Callable

from arena.engine import quoted
from arena.errors import Invalid, NotReady
from arena.store.rows import BotRow
from arena.store.store import Store
from arena.usecases.runs import advance_run, recounted

STATES = ("active", "withdrawn", "disqualified", "retired")


def set_state(
    store: Store,
    name: str,
    state: str,
    reason: str = "",
    run_id: int | None = None,
    actor: str = "organizer",
    send: Callable[[list[str]], object] = lambda ids: None,
) -> BotRow:
    """Set the bot's state, acting on its matches in the runs not over (or in ``run_id``
    alone, its state then unchanged) as the policy says; the bot as it is now. A run
    whose last matches were the bot's moves on: its table written, or its next round
    paired (a knockout, a Swiss: the bot out of it), its matches handed to ``send``."""
    if state not in STATES:
        raise Invalid(f"a bot's state is one of {', '.join(STATES)}, not {quoted(state)}")
    if state == "disqualified" and not reason.strip():
        raise Invalid("say why the bot is disqualified (--reason)")
    if run_id is not None and state not in ("withdrawn", "disqualified"):
        raise Invalid("only a withdrawal or a disqualification can name a run")
    with store.unit() as conn:
        bot = store.lock_bot(conn, name)
        if run_id is None and bot.state == state:
            raise NotReady(f"bot {quoted(name)} is {state} already")
        runs = [run_id] if run_id is not None else store.open_runs(conn)
        matches = store.bot_run_matches(conn, bot.id, runs) if state != "active" else {}
        left = [m for m, (status, _) in matches.items() if status == "scheduled"]
        cancelled = store.cancel_matches(conn, left) if state != "disqualified" else []
        voided: list[str] = []
        if state == "disqualified":
            voided = store.void_matches(conn, list(matches), f"{name} disqualified: {reason}")
        if run_id is None:
            bot = store.set_bot_state(conn, name, state, reason)
        detail = {"reason": reason, "cancelled": len(cancelled), "voided": len(voided)}
        if run_id is not None:
            detail["run"] = run_id
        store.log_action(conn, actor, _verb(state), f"bot {name}", detail)
    touched = sorted({matches[m][1] for m in [*cancelled, *voided]})
    if voided:
        recounted(store, store.match_pools(voided), touched)
    for run in touched:
        send(advance_run(store, run).next)
    return bot


def _verb(state: str) -> str:
    return {"active": "reinstate", "withdrawn": "withdraw", "disqualified": "disqualify",
            "retired": "retire"}[state]  # fmt: skip
