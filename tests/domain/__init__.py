"""The domain's tests on values alone (test_tournament.py ends with runs in PostgreSQL)."""
