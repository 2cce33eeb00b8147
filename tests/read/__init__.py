"""The read model's tests."""
