-- An import of lines an earlier import stored counts them done (nothing is stored twice), which
-- read as a second import: how many of `done` were already stored is counted beside it.
ALTER TABLE backfills ADD COLUMN already_stored integer NOT NULL DEFAULT 0;
