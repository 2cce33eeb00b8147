"""The house bots' tests."""
