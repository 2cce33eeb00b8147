"""The Celery app and its tasks (issue 5 onward)."""
