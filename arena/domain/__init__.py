"""The arena's domain: ratings, tournaments and their formats, sequential tests,
matchmaking, pools, schedules, placement, clocks, absence and identities, as plain values
and pure functions (no I/O; the layers: the README's folder table, tests/test_layers.py)."""
