-- Versions under their author's control (docs/hosting.md, "Versions"): a version submitted
-- as a candidate is checked like any, then waits, 'candidate', for its author to activate
-- it; any checked version (a candidate, or one retired) may be made active again. What a
-- clean check makes a version is decided as it ends: `candidate` says which.
ALTER TABLE bot_versions DROP CONSTRAINT bot_versions_status_check;
ALTER TABLE bot_versions ADD CONSTRAINT bot_versions_status_check
    CHECK (status IN ('checking', 'candidate', 'active', 'retired', 'rejected'));
-- submitted as a candidate: a clean check leaves it 'candidate', not active
ALTER TABLE bot_versions ADD COLUMN candidate boolean NOT NULL DEFAULT false;

-- Each time a version became its bot's active one, so that "the version active at T" (a
-- run whose entries closed at T) holds when versions are activated in any order: the
-- latest activation at or before T. `at` is the clock's when the row is written, under
-- the bot's lock, so a bot's activations are in the order of their ids and their times.
CREATE TABLE version_activations (
    id          bigserial PRIMARY KEY,
    bot_id      bigint NOT NULL REFERENCES bots (id),
    version_id  bigint NOT NULL REFERENCES bot_versions (id),
    at          timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX version_activations_by_bot ON version_activations (bot_id, at);

-- Until now a version became active once, as its check ended, and then only later numbers:
-- each active or retired version was activated at its checked_at.
INSERT INTO version_activations (bot_id, version_id, at)
SELECT bot_id, id, checked_at FROM bot_versions
WHERE status IN ('active', 'retired') AND checked_at IS NOT NULL
ORDER BY checked_at, id;

-- Who plays for a bot at `as_of` (NULL: now): its active version then, NULL for none.
CREATE FUNCTION playing_version(bot bigint, as_of timestamptz) RETURNS bigint
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN as_of IS NULL
        THEN (SELECT v.id FROM bot_versions v WHERE v.bot_id = bot AND v.status = 'active')
        ELSE (SELECT a.version_id FROM version_activations a
              WHERE a.bot_id = bot AND a.at <= as_of ORDER BY a.id DESC LIMIT 1) END
$$;
