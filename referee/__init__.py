"""The gRPC referee: bot sessions, the match runner and the Arena API (issue 3 onward)."""
