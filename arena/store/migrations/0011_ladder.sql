-- The ladder (docs/ladder.md): per pool, rated matches that the arena starts by itself
-- between the bots available, up to a number at once. Everything it knows is here, so a
-- scheduler that restarts, or a second one, carries on where the first was.
CREATE TABLE ladders (
    id           serial PRIMARY KEY,
    pool         text NOT NULL UNIQUE,
    running      boolean NOT NULL DEFAULT true,   -- switched on
    concurrency  integer NOT NULL CHECK (concurrency BETWEEN 1 AND 256),  -- matches at once
    clock        jsonb NOT NULL,                  -- the time control of its matches
    -- Matches made so far: the next is ladderID-(scheduled + 1). Raised under the row's
    -- lock in the transaction that makes the matches, so two schedulers never make the
    -- same slot's match twice, and a slot is free only when its match is done.
    scheduled    bigint NOT NULL DEFAULT 0,
    available    text[] NOT NULL DEFAULT '{}',    -- the bots it could pair at its last look
    looked_at    timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE matches ADD COLUMN ladder_id integer REFERENCES ladders (id);
-- a ladder's latest pairings (its match ids are numbered in order), and its matches
-- finished in the last hour
CREATE INDEX matches_by_ladder ON matches (ladder_id, id) WHERE ladder_id IS NOT NULL;
CREATE INDEX matches_finished_by_ladder ON matches (ladder_id, finished_at)
WHERE ladder_id IS NOT NULL AND status = 'finished';
-- its slots taken: the matches it has that are neither finished nor failed
CREATE INDEX matches_unfinished_by_ladder ON matches (ladder_id)
WHERE ladder_id IS NOT NULL AND status NOT IN ('finished', 'failed');

-- A bot's ladder matches by pool and time (its page), however many others it played.
ALTER TABLE match_seats ADD COLUMN ladder boolean NOT NULL DEFAULT false;
CREATE INDEX match_seats_ladder_by_bot_pool_created
    ON match_seats (bot_id, pool, created_at DESC, match_id DESC) WHERE ladder;

-- Whether the ladder may schedule the bot, set with its own token. NULL is the default:
-- a hosted bot plays on the ladder unless it opted out, a bot that dials in only once it
-- opted in (and while it is connected).
ALTER TABLE bots ADD COLUMN ladder boolean;
