"""The use cases' tests, on a real PostgreSQL."""
