-- Hosted bots (docs/hosting.md): each submission of a bot's code is a version, and each
-- version plays under a bot row of its own, named NAME@N, so that it has its own rating in
-- every pool and its own seats in the records, through the very tables and queries every
-- bot has. A version's row has no token: the arena itself starts it, never a dial-in.
ALTER TABLE bots DROP CONSTRAINT bots_name_check;
ALTER TABLE bots ADD CONSTRAINT bots_name_check
    CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(@[1-9][0-9]{0,8})?$');
ALTER TABLE bots ALTER COLUMN token_hash DROP NOT NULL;

-- A submitted archive, once, whoever submitted it: a version names it by its hash.
CREATE TABLE bot_archives (
    hash        text PRIMARY KEY,  -- sha256 of the archive's bytes
    data        bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE bot_versions (
    id          bigint PRIMARY KEY REFERENCES bots (id),  -- the version's own row, NAME@N
    bot_id      bigint NOT NULL REFERENCES bots (id),     -- the bot it is a version of
    number      integer NOT NULL CHECK (number > 0),
    hash        text NOT NULL,  -- the version's identity: its files and manifest
    archive     text NOT NULL REFERENCES bot_archives (hash),
    runtime     text NOT NULL CHECK (runtime IN ('python', 'node', 'exec')),
    entry       text NOT NULL,
    size        integer NOT NULL,  -- the archive's bytes
    unpacked    bigint NOT NULL,   -- its files' bytes
    files       integer NOT NULL,
    -- checking, then active (the one its bot plays as; the one before it is retired) or
    -- rejected, with the reason
    status      text NOT NULL DEFAULT 'checking'
                CHECK (status IN ('checking', 'active', 'retired', 'rejected')),
    reason      text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    checked_at  timestamptz,
    UNIQUE (bot_id, number),
    UNIQUE (bot_id, hash)
);
CREATE UNIQUE INDEX bot_versions_one_active ON bot_versions (bot_id) WHERE status = 'active';

-- What a hosted version's process printed in a match (stdout and stderr, capped by the
-- sandbox), for its owner and the organizer to read.
CREATE TABLE bot_logs (
    match_id    text NOT NULL REFERENCES matches (id),
    bot_id      bigint NOT NULL REFERENCES bots (id),  -- the version's row
    log         text NOT NULL,
    status      integer,  -- the process's exit status (128 + signal when killed)
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (match_id, bot_id)
);
