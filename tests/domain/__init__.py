"""The domain's tests on values alone: ratings, tournaments, sequential tests, matchmaking."""
