"""The workers' tests: tasks and the ladder played by real processes."""
