-- The organizer in control (docs/events.md): tournaments edited, unscheduled and deleted;
-- runs paused, resumed and cancelled; matches cancelled, voided and replayed; bots
-- withdrawn, disqualified, reinstated and retired; who did what, in an action log; more
-- than one organizer.

-- A deleted tournament keeps its row (its runs keep their records); its name is free again.
ALTER TABLE tournaments ADD COLUMN deleted_at timestamptz;
ALTER TABLE tournaments DROP CONSTRAINT tournaments_name_key;
CREATE UNIQUE INDEX tournaments_live_name ON tournaments (name) WHERE deleted_at IS NULL;

-- A run may be paused (nothing new starts) and cancelled (what had not started never
-- will). Its entries are frozen when it is made: each participant and who plays for it
-- (its active hosted version then, or itself), as {name: [bot row id, seat name]}.
ALTER TABLE runs DROP CONSTRAINT runs_status_check;
ALTER TABLE runs ADD CONSTRAINT runs_status_check
    CHECK (status IN ('starting', 'running', 'paused', 'finished', 'cancelled', 'failed'));
ALTER TABLE runs ADD COLUMN entries jsonb;

-- A match not started when its run was cancelled, or its bot withdrawn, is cancelled: it
-- is never played. A finished match may be voided (its result no longer counts, for the
-- run's table or for any rating), and a failed or voided match of a run replayed: a new
-- match on the same deals and seats, `replay_of` naming the one it replaces. `sent_at`:
-- when its task was last handed to the broker (a run keeps a bounded window in flight).
ALTER TABLE matches DROP CONSTRAINT matches_status_check;
ALTER TABLE matches ADD CONSTRAINT matches_status_check
    CHECK (status IN ('scheduled', 'running', 'finished', 'failed', 'cancelled'));
ALTER TABLE matches
    ADD COLUMN voided text,  -- why its result no longer counts; NULL: it counts
    ADD COLUMN replay_of text REFERENCES matches (id),
    ADD COLUMN sent_at timestamptz;
CREATE UNIQUE INDEX matches_replayed_once ON matches (replay_of) WHERE replay_of IS NOT NULL;
DROP INDEX matches_unfinished_outside_runs;
CREATE INDEX matches_unfinished_outside_runs ON matches (created_at)
WHERE run_id IS NULL AND status IN ('scheduled', 'running');
CREATE INDEX matches_run_unsent ON matches (run_id, id)
WHERE run_id IS NOT NULL AND status = 'scheduled';

CREATE OR REPLACE FUNCTION no_match_left(the_run bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM runs r WHERE r.id = the_run FOR UPDATE;
    RETURN NOT EXISTS (SELECT 1 FROM matches m
                       WHERE m.run_id = the_run AND m.status IN ('scheduled', 'running'));
END $$;

-- A bot's standing: active, or withdrawn, disqualified or retired (with the reason). Only
-- an active bot connects, is scheduled, or enters a run; `active` is kept as it was read.
ALTER TABLE bots
    ADD COLUMN state text NOT NULL DEFAULT 'active'
        CHECK (state IN ('active', 'withdrawn', 'disqualified', 'retired')),
    ADD COLUMN state_reason text NOT NULL DEFAULT '';
UPDATE bots SET state = 'retired', state_reason = 'made inactive before states existed'
WHERE NOT active;
ALTER TABLE bots DROP COLUMN active;
ALTER TABLE bots ADD COLUMN active boolean GENERATED ALWAYS AS (state = 'active') STORED;

-- Who did what: every organizer's and owner's action, as it was done (arena log).
CREATE TABLE action_log (
    id       bigserial PRIMARY KEY,
    at       timestamptz NOT NULL DEFAULT now(),
    actor    text NOT NULL,  -- an organizer's name, or "bot NAME" for a bot's own token
    action   text NOT NULL,  -- register, submit, create, edit, start, cancel, ...
    subject  text NOT NULL,  -- what it was done to: a bot, a tournament, a run, a match
    detail   jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX action_log_by_subject ON action_log (subject, id DESC);

-- Named organizers, each with a token of their own (only its hash is kept). The one from
-- ARENA_ADMIN_TOKEN or ARENA_HOME is not a row: it is the first, named "organizer".
CREATE TABLE organizers (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    token_hash  bytea NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    removed_at  timestamptz
);
