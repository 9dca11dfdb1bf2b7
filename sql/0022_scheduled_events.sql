-- Scheduled events (`deliverAt` / `delay`, docs/events.md "Scheduled events").
--
-- A scheduled event is committed and counted at once, written once: into
-- events, by the ingest statement, with created_at = scheduled_for = its due
-- time (the time inside its id, a UUIDv7 of the due time), and with a timer
-- row here, and no outbox row. Nothing reads it as an event before its time:
-- every read of events for a person or a producer goes through visibleTo
-- (src/ingest/event_reads.ts), which bounds `e.id <= the greatest UUIDv7 of
-- now`, an index condition on every feed index; fan-out, pushes and routers
-- start from the outbox row the release writes.
--
-- The timer row (STYLE 23): every process that runs the outbox relay claims
-- due rows FOR UPDATE SKIP LOCKED and, in one statement, deletes them, writes
-- their outbox row and lowers the workspaces' scheduled_count
-- (src/delivery/release.ts). So each goes out once, across instances and
-- restarts, and the outbox carries it over a bus outage. Its primary key
-- orders the timers by due time: the claim is `id <= the greatest UUIDv7 of
-- now()` in id order, and the release's sleep is min(id). Two index entries
-- per row (the key and the workspace's list), nothing else.
--
-- A cancel deletes the timer row (only one not yet due: a due one belongs to
-- the release), the event row, and keeps a copy in cancelled_events, in one
-- statement whose DELETE waits for the release's row lock, so exactly one of
-- the two wins. No foreign key: workspaces are never deleted (events have
-- none either), and a key would cost a look-up per scheduled row.
CREATE TABLE scheduled_events (
  id            uuid PRIMARY KEY,
  workspace_id  bigint NOT NULL
);
-- GET /events?status=scheduled: a workspace's, by id (so by due time).
CREATE INDEX scheduled_events_workspace ON scheduled_events (workspace_id, id);

-- Cancelled scheduled events, kept a week past their time so that a
-- repeated cancel (and GET /events/{id}) answers the same, then purged by id
-- (maintain() in src/server.ts). Rare: a copy of the whole event.
CREATE TABLE cancelled_events (
  id            uuid PRIMARY KEY,
  workspace_id  bigint NOT NULL,
  channel       text NOT NULL,
  event         text,
  title         text,
  message       text NOT NULL,
  link          text,
  tags          text[] NOT NULL DEFAULT '{}',
  data          json,
  priority      smallint NOT NULL DEFAULT 3,
  ttl           integer,
  collapse_key  text,
  receipt       uuid,
  recipients    uuid[],
  cancelled_at  timestamptz NOT NULL DEFAULT now()
);

-- The workspace's scheduled events that wait, for the cap
-- (HERALD_MAX_SCHEDULED_EVENTS): raised by the ingest statement under the
-- workspace's row lock, lowered by the release and the cancel in theirs.
ALTER TABLE workspaces ADD COLUMN scheduled_count integer NOT NULL DEFAULT 0;

-- A scheduled event's due time (equal to its created_at); null for every
-- other event (no default, so adding it rewrites nothing).
ALTER TABLE events ADD COLUMN scheduled_for timestamptz;
