-- Herald's base schema: workspaces with their quota and rate-limit counters,
-- channels, API keys, the partitioned events table, the outbox and the
-- idempotency keys. Runs on PostgreSQL 15+ and on PGlite unchanged.

CREATE TABLE workspaces (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name             text NOT NULL UNIQUE,
  default_channel  text NOT NULL DEFAULT 'general',
  monthly_quota    bigint NOT NULL,
  -- quota_used counts events accepted since quota_period (the first day of a
  -- UTC month); the ingest batch resets it when the month rolls over.
  quota_used       bigint NOT NULL DEFAULT 0,
  quota_period     date NOT NULL DEFAULT date_trunc('month', now() AT TIME ZONE 'UTC')::date,
  -- Token bucket: `tokens` as of `tokens_at`, refilled at rate_per_second up
  -- to rate_burst. Kept here so every API instance shares one bucket.
  rate_per_second  double precision NOT NULL,
  rate_burst       integer NOT NULL,
  tokens           double precision NOT NULL,
  tokens_at        timestamptz NOT NULL DEFAULT now(),
  created_at       timestamptz NOT NULL DEFAULT now()
) WITH (fillfactor = 50); -- the counters are rewritten by every batch; room for HOT updates

CREATE TABLE channels (
  workspace_id  bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  slug          text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, slug)
);

CREATE TABLE api_keys (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id  bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name          text NOT NULL DEFAULT '',
  prefix        text NOT NULL,           -- the first characters, shown in lists
  hash          bytea NOT NULL UNIQUE,   -- SHA-256 of the whole key; the key itself is never stored
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id);

-- Events are partitioned by month of created_at (see src/partitions.ts for how
-- partitions are created ahead of time and dropped after HERALD_RETENTION_MONTHS).
-- The id is a UUIDv7 whose timestamp equals created_at, so ordering by id is
-- ordering by time, and the id alone locates the partition.
CREATE TABLE events (
  id            uuid NOT NULL,
  workspace_id  bigint NOT NULL,
  channel       text NOT NULL,
  created_at    timestamptz NOT NULL,
  event         text,
  title         text,
  message       text NOT NULL,
  link          text,
  tags          text[] NOT NULL DEFAULT '{}',
  -- json, not jsonb: stored as sent (after validation), which costs a third of
  -- a jsonb conversion on the ingest path; nothing queries inside it.
  data          json,
  -- Doubles as the feed index "by workspace and time".
  PRIMARY KEY (workspace_id, id, created_at)
) PARTITION BY RANGE (created_at);
CREATE INDEX events_channel_feed ON events (workspace_id, channel, id);
CREATE TABLE events_default PARTITION OF events DEFAULT;

-- The transactional outbox: one row per committed batch, listing its events.
-- One row per batch rather than per event keeps the ingest transaction to a
-- single extra insert; the relay publishes each listed event and then deletes
-- the row. created_at is derivable from each UUIDv7 (see uuidv7_time).
CREATE TABLE outbox (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_ids      uuid[] NOT NULL,
  workspace_ids  bigint[] NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);

-- The Unix-ms timestamp of a UUIDv7, as timestamptz: lets a bare event id find
-- its partition.
CREATE FUNCTION uuidv7_time(id uuid) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN to_timestamp((('x' || substr(replace(id::text, '-', ''), 1, 12))::bit(48)::bigint) / 1000.0);

CREATE TABLE idempotency_keys (
  workspace_id     bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  key              text NOT NULL,
  request_hash     bytea NOT NULL,
  response         jsonb,   -- the original 200 body; NULL only inside the claiming transaction
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
