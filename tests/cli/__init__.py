"""The command line's tests, one module per command."""
