"""The referee's tests: sessions, clocks, the Arena API, hosted seats, TLS."""
