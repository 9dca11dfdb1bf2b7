-- Deliveries and their attempts, partitioned by month like events, so that
-- HERALD_RETENTION_MONTHS drops them whole together with their events' month
-- (src/core/partitions.ts) instead of keeping about 500 B per event forever.
--
-- The partition key of both is event_at, the time of the delivery's event:
-- uuidv7_time(event_id), the same instant as events.created_at, so a month of
-- events and the deliveries it caused live and die together.
-- - Not the delivery id, although today's ids begin with the event's time
--   (workers/send.ts): ids written before 0004 were UUIDv7s of the fan-out,
--   which may fall in another month than the event.
-- - Not event_id as a UUID range: delivery_attempts has no event_id, and an
--   8-byte timestamp on each attempt costs half of a 16-byte UUID; the bounds
--   then read as dates, like those of events.
-- A unique constraint on a partitioned table must hold the partition key, so
-- the one that makes delivery creation idempotent becomes
-- (event_id, kind, target, event_at). Every insert computes event_at as
-- uuidv7_time(event_id) (src/delivery/deliveries.ts), so it forbids exactly
-- what (event_id, kind, target) forbade; it is not checked again by a CHECK,
-- nor are attempts tied to their delivery by a foreign key: on the fan-out's
-- hottest statement the two cost 0.37 ms of its 0.85 (pg_stat_statements,
-- bench/fanout.ts at 3,000 events/s), and no delivery is ever deleted but
-- with its month's partitions, attempts first (src/core/partitions.ts). The
-- primary key becomes (id, event_at): look-ups by id read the (id, …) index of
-- each partition. An attempt lives in its delivery's month.
--
-- Runs on PostgreSQL 15+ and PGlite. Every row is kept: the tables are
-- rebuilt, filled from the old ones and indexed after the copy.

-- Month bounds are UTC months, as in partitions.ts.
SET LOCAL TimeZone = 'UTC';

ALTER TABLE delivery_attempts RENAME TO delivery_attempts_old;
ALTER TABLE deliveries RENAME TO deliveries_old;

CREATE TABLE deliveries (
  id               uuid NOT NULL,
  event_id         uuid NOT NULL,
  event_at         timestamptz NOT NULL,
  workspace_id     bigint NOT NULL CONSTRAINT deliveries_workspace_id_fkey REFERENCES workspaces(id) ON DELETE CASCADE,
  kind             text NOT NULL DEFAULT 'router',
  router_id        uuid,            -- no foreign key since 0004: a deleted router's deliveries keep its id
  target           text NOT NULL,   -- router id (or, for pushes, device id) as text: the dedup key
  status           text NOT NULL DEFAULT 'pending' CONSTRAINT deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  last_status      integer,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
) PARTITION BY RANGE (event_at);

CREATE TABLE delivery_attempts (
  delivery_id   uuid NOT NULL,
  event_at      timestamptz NOT NULL, -- its delivery's: the partition key, and half of the foreign key
  attempt       integer NOT NULL,
  started_at    timestamptz NOT NULL,
  duration_ms   integer NOT NULL,
  status        integer,            -- HTTP status or SMTP reply code, when one came back
  ok            boolean NOT NULL,
  error         text,
  response      text                -- the first KiB of the response body
) PARTITION BY RANGE (event_at);

-- A safety net, as events_default is: rows of a month whose partition is not
-- made yet land here and are moved when it is (partitions.ts).
CREATE TABLE deliveries_default PARTITION OF deliveries DEFAULT;
CREATE TABLE delivery_attempts_default PARTITION OF delivery_attempts DEFAULT;

-- A partition for every month that has deliveries, so that retention drops
-- the old ones whole; partitions.ts makes the current and coming months.
DO $$
DECLARE
  m timestamptz;
BEGIN
  FOR m IN SELECT DISTINCT date_trunc('month', uuidv7_time(event_id)) FROM deliveries_old LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF deliveries FOR VALUES FROM (%L) TO (%L)',
      to_char(m, '"deliveries_y"YYYY"m"MM'), m, m + interval '1 month');
    EXECUTE format('CREATE TABLE %I PARTITION OF delivery_attempts FOR VALUES FROM (%L) TO (%L)',
      to_char(m, '"delivery_attempts_y"YYYY"m"MM'), m, m + interval '1 month');
  END LOOP;
END $$;

INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target, status, attempts,
    next_attempt_at, last_status, last_error, created_at, updated_at)
  SELECT id, event_id, uuidv7_time(event_id), workspace_id, kind, router_id, target, status, attempts,
    next_attempt_at, last_status, last_error, created_at, updated_at
  FROM deliveries_old;
-- The old foreign key guarantees each attempt its delivery.
INSERT INTO delivery_attempts (delivery_id, event_at, attempt, started_at, duration_ms, status, ok, error, response)
  SELECT a.delivery_id, uuidv7_time(d.event_id), a.attempt, a.started_at, a.duration_ms, a.status, a.ok, a.error, a.response
  FROM delivery_attempts_old a JOIN deliveries_old d ON d.id = a.delivery_id;

DROP TABLE delivery_attempts_old;
DROP TABLE deliveries_old;

-- The constraints and indexes of 0002 and 0009, under their names, with
-- event_at added where a partitioned table requires its key.
ALTER TABLE deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id, event_at);
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_id_kind_target_key UNIQUE (event_id, kind, target, event_at);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_workspace_failed ON deliveries (workspace_id, updated_at) WHERE status = 'failed';
CREATE INDEX deliveries_workspace_list ON deliveries (workspace_id, id);
CREATE INDEX deliveries_workspace_failed_list ON deliveries (workspace_id, id) WHERE status = 'failed';
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_pkey PRIMARY KEY (delivery_id, attempt, started_at, event_at);

-- usage_daily is pruned by day (partitions.ts, hourly), through this index
-- rather than a scan of every workspace's days. It costs one index entry per
-- workspace and day; the ingest batch's updates of a day's counter stay HOT
-- (they never change day).
CREATE INDEX usage_daily_day ON usage_daily (day);
