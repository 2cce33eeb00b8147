"""What a bot is: a name and one method, ``decide(view) -> Action``."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from arena.engine import Action, View


@runtime_checkable
class Bot(Protocol):
    """A truco player. ``decide`` is called only when the view's seat must act, and
    must return one of ``view.legal``. Subclass it or just match its shape."""

    name: str

    def decide(self, view: View) -> Action:
        """The action to take in the position the view shows."""
        ...
