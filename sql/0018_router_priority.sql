-- A router's minPriority: it forwards only the events whose priority (1-5,
-- sql/0016) is at or above it. 1, the default, forwards every event, as
-- routers did before priorities existed.
ALTER TABLE routers ADD COLUMN min_priority smallint NOT NULL DEFAULT 1
  CONSTRAINT routers_min_priority_check CHECK (min_priority BETWEEN 1 AND 5);
