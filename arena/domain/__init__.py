"""The arena's domain: ratings, tournaments and their formats, sequential tests,
matchmaking, pools, schedules, placement, clocks, absence and identities, as plain values
and pure functions (no I/O: docs/architecture.md)."""
