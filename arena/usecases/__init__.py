"""The arena's writes, one use case a function: each takes ids and plain values, runs
in one unit of work on the store, and decides with the domain (the layers: the README's
folder table)."""
