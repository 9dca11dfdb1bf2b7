-- How an event notifies (issue 32): its priority (1-5, 3 when not given),
-- how long it is worth sending (ttl, seconds), the key under which a newer
-- event replaces it on a device, and its receipt when it must be
-- acknowledged. Columns with constant defaults: adding them rewrites no
-- partition.
ALTER TABLE events ADD COLUMN priority smallint NOT NULL DEFAULT 3;
ALTER TABLE events ADD COLUMN ttl integer;
ALTER TABLE events ADD COLUMN collapse_key text;
ALTER TABLE events ADD COLUMN receipt uuid;

-- The feed's minPriority=4 or 5 (high and urgent events are few): its pages
-- read this index newest first instead of every event of the workspace.
CREATE INDEX events_urgent ON events (workspace_id, id) WHERE priority >= 4;

-- A delivery or push not sent before its event's ttl ran out ends 'expired'.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled', 'expired'));
