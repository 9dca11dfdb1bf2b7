-- Fan-out: routers, their deliveries and every attempt of each delivery.

-- A router forwards the events whose `event` key matches `pattern` to one
-- destination. The destination's configuration is a secret as a whole (URLs
-- carry tokens): it is stored encrypted (AES-256-GCM, src/secrets.ts) together
-- with the router's Standard Webhooks signing secret; `destination_view` is the
-- redacted copy the API shows.
CREATE TABLE routers (
  id                uuid PRIMARY KEY,
  workspace_id      bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name              text NOT NULL,
  pattern           text NOT NULL,
  destination_type  text NOT NULL,
  destination_view  jsonb NOT NULL,
  secrets           bytea NOT NULL,
  template          jsonb,
  enabled           boolean NOT NULL DEFAULT true,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, name)
);

-- One row per (event, target). The id is stable across attempts and across
-- duplicate fan-outs of the same event (the UNIQUE constraint makes creation
-- idempotent), so it is what webhooks receive as `webhook-id`.
-- status: pending (due at next_attempt_at), succeeded, failed (permanent error
-- or attempts exhausted; replayable). A worker claims a pending delivery by
-- moving next_attempt_at forward by a lease; if it dies, the lease runs out
-- and another worker takes the delivery.
CREATE TABLE deliveries (
  id               uuid PRIMARY KEY,
  event_id         uuid NOT NULL,
  workspace_id     bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  kind             text NOT NULL DEFAULT 'router',
  router_id        uuid REFERENCES routers(id) ON DELETE SET NULL,
  target           text NOT NULL,   -- router id (or, for pushes, device id) as text: the dedup key
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  last_status      integer,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, kind, target)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_workspace_failed ON deliveries (workspace_id, updated_at) WHERE status = 'failed';

CREATE TABLE delivery_attempts (
  delivery_id   uuid NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  attempt       integer NOT NULL,
  started_at    timestamptz NOT NULL,
  duration_ms   integer NOT NULL,
  status        integer,            -- HTTP status or SMTP reply code, when one came back
  ok            boolean NOT NULL,
  error         text,
  response      text,               -- the first KiB of the response body
  PRIMARY KEY (delivery_id, attempt, started_at)
);

-- The relay leases outbox rows instead of holding a transaction open while it
-- publishes (the embedded database has a single connection, and a slow NATS
-- must not pin a PostgreSQL connection). A row whose lease ran out (its relay
-- died before deleting it) is published again; Nats-Msg-Id drops the copies.
ALTER TABLE outbox ADD COLUMN claimed_until timestamptz;
