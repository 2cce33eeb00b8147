-- The hand points each team won in a match, kept beside the record when it finishes, so
-- that a run's standings need not walk every record.
ALTER TABLE matches ADD COLUMN points smallint[];

UPDATE matches m SET points = ARRAY(
    SELECT coalesce(sum((h -> 'result' -> 'points' ->> t)::int), 0)
    FROM generate_series(0, 1) t
    LEFT JOIN jsonb_array_elements(m.record -> 'hands') h ON true
    GROUP BY t ORDER BY t)
WHERE m.record IS NOT NULL;
