-- The engine of routers' throttles and digests (src/delivery/throttle.ts,
-- digest.ts, digest_timer.ts; DECISIONS.md "Scheduling, throttling, digests").
--
-- A throttle's counter: one row per (router, rendered key), its window
-- starting with the first event of the key. Admission takes the row's lock
-- (INSERT … ON CONFLICT DO UPDATE), so concurrent workers count exactly.
-- Rows whose window ended are deleted by the digest timer, a bounded number
-- per look.
CREATE TABLE router_throttles (
  router_id   uuid NOT NULL,
  key         text NOT NULL,
  window_end  timestamptz NOT NULL,
  count       integer NOT NULL DEFAULT 0,
  PRIMARY KEY (router_id, key)
);
CREATE INDEX router_throttles_end ON router_throttles (window_end);

-- A digest's open window: one row per (router, rendered key) while it
-- gathers. `id` is the id its digest delivery will have (derived from its
-- first event); `count` the events gathered so far. The events themselves
-- are not listed here (an array rewritten on every append cost more than
-- the events' own rows): each gathered event's `digested` delivery names
-- the digest (deliveries.digest_id, indexed below), and the digest's
-- events are read through that index when it is sent.
-- Gathering (digest.ts gatherDigests, one worker batch at a time) locks
-- the batch's windows in one statement, (router, key) order, then writes
-- the events' deliveries, the windows' new counts and the digests of the
-- windows that filled in a second statement, in one transaction: two
-- workers adding to one key take turns on this row. Firing (the window's
-- end, any worker's timer, FOR UPDATE SKIP LOCKED; or `max` reached, by
-- the gatherer holding the lock) removes the window (or starts it afresh)
-- and inserts the digest's delivery in the same statement: once per window.
CREATE TABLE digest_windows (
  router_id       uuid NOT NULL,
  key             text NOT NULL,
  id              uuid NOT NULL,
  workspace_id    bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  first_event_id  uuid NOT NULL,
  count           integer NOT NULL DEFAULT 0,
  opened_at       timestamptz NOT NULL DEFAULT now(),
  due_at          timestamptz NOT NULL,
  PRIMARY KEY (router_id, key)
);
CREATE INDEX digest_windows_due ON digest_windows (due_at);

-- A gathered event's router delivery (`digested`, no attempt) names its
-- digest's delivery (digest_id); a digest's delivery (kind `digest`,
-- event_id its first event's) carries its key and how many events it
-- gathered (digest_count: retention may drop some of them before a replay;
-- the message then says so). A digest's events are its digested
-- deliveries, found through deliveries_digest.
ALTER TABLE deliveries ADD COLUMN digest_id uuid;
ALTER TABLE deliveries ADD COLUMN digest_key text;
ALTER TABLE deliveries ADD COLUMN digest_count integer;
CREATE INDEX deliveries_digest ON deliveries (digest_id) WHERE digest_id IS NOT NULL;

ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
  CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled', 'expired', 'suppressed', 'throttled', 'digested'));
