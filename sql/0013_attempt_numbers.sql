-- A replay starts a delivery's retry schedule again (attempts counts from 0,
-- and the schedule reads it), but its attempts are numbered on from those
-- before: attempts_before holds how many were made before the last replay,
-- so the attempt after a replay of a delivery tried once is #2, not #1 again,
-- and lists show every attempt made.
ALTER TABLE deliveries ADD COLUMN attempts_before integer NOT NULL DEFAULT 0;
