-- Tournament formats played in rounds, and stages (docs/formats.md).
-- A run's field in seed order, as it was frozen with its entries (bot names; the best
-- first), and, for a knockout or a Swiss, the rounds paired so far: the domain's state of
-- the run (arena/domain/knockout.py, arena/domain/swiss.py), written as each round is
-- paired and closed.
ALTER TABLE runs ADD COLUMN seeds text[], ADD COLUMN rounds jsonb;

-- The round of a knockout's or a Swiss's run a match is played in (NULL in the formats
-- planned whole); a match played again keeps its round.
ALTER TABLE matches ADD COLUMN round smallint;
