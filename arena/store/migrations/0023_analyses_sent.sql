-- An analysis whose task was lost is sent again (issue 37; docs/web.md, "The analysis
-- of a match"): when it was last handed to the workers (asked, sent again by the
-- scheduler's sweep, or put back behind play by a worker), and when a worker last began
-- one of its seats. The sweep sends again what is pending with neither for a while.
ALTER TABLE analyses ADD COLUMN sent_at timestamptz;
ALTER TABLE analyses ADD COLUMN started_at timestamptz;
UPDATE analyses SET sent_at = created_at;
ALTER TABLE analyses ALTER COLUMN sent_at SET NOT NULL, ALTER COLUMN sent_at SET DEFAULT now();

-- The sweep's look: the pending analyses, oldest sign of life first.
CREATE INDEX analyses_pending ON analyses (sent_at) WHERE status = 'pending';
