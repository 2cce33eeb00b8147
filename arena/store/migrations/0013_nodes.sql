-- Referee nodes (docs/cluster.md): several `arena serve` processes on one database. Each
-- node holds a lease on its row and on a row for every bot connected to it, renewed every
-- few seconds; a row whose lease ran out is no longer true (its node died, or lost the
-- database), and is not read. Placement, the ladder and ListBots read these rows, so which
-- bot is where never lives in one node's memory only.
CREATE TABLE nodes (
    name        text PRIMARY KEY,
    address     text NOT NULL,               -- where other nodes and the workers reach it
    started_at  timestamptz NOT NULL DEFAULT now(),
    renewed_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    bots        integer NOT NULL DEFAULT 0,  -- connected, at its last renewal
    matches     integer NOT NULL DEFAULT 0,  -- playing, at its last renewal
    relayed     bigint NOT NULL DEFAULT 0    -- seats it carried to other nodes' matches
);

-- A bot's live session: one row per bot (its newest connection wins: a node that finds
-- its row taken by another ends its own session, as one node does when a bot reconnects).
CREATE TABLE presence (
    bot          text PRIMARY KEY,
    node         text NOT NULL,
    concurrency  integer NOT NULL,
    playing      integer NOT NULL DEFAULT 0,  -- matches it is seated in, at that node
    since        timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
CREATE INDEX presence_by_node ON presence (node);
