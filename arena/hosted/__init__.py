"""Hosted bots: code submitted to the arena, checked, and played by the arena itself in a
sandbox, a fresh process for every match (docs/hosting.md)."""
