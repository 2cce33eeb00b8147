-- Ratings change in place. Every recorded match moves the Elo of its bots, and with an
-- index on elo each move was a new row version plus new entries in both indexes: a
-- tournament's few rows collected thousands of dead versions, and each match paid more
-- to find its bots' ratings than the one before (0.9 ms of server time per recorded
-- match at first, 1.7 ms after 8,000 matches of two bots). Without it the update is a
-- heap-only one, and the cost stays flat (0.6 ms). The leaderboard reads one pool of a
-- table with a row per bot and pool: a scan and a sort, no index needed.
DROP INDEX ratings_by_pool;
