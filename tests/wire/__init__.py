"""The wire's tests: the messages' encoding and the clock on the wire."""
