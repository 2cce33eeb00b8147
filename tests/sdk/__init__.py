"""The SDK's tests: its addresses, failover, and its install alone."""
