-- A bot's rating history is read from its index alone: the index carries what the chart
-- shows, so its latest events come from a few index pages instead of one heap page per
-- event. Index-only scans need the table's pages marked all-visible, which autovacuum
-- does on its own for a table that is only ever inserted into, as this one is.
DROP INDEX rating_events_by_bot;
CREATE INDEX rating_events_by_bot ON rating_events (bot_id, pool, created_at DESC, id DESC)
    INCLUDE (match_id, before, after);
