"""The store's tests, on a real PostgreSQL."""
