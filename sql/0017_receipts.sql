-- Receipts: events that repeat until someone acknowledges them
-- (src/delivery/receipts.ts, src/delivery/receipt_timer.ts).
--
-- A receipt is made with its event, in the transaction that writes it
-- (src/ingest/serial.ts), and is its own timer: next_push_at is when a worker
-- next has something to do for it (a repeat, an escalation step, or its
-- expiry, whichever comes first). Workers claim due rows FOR UPDATE SKIP
-- LOCKED and, in the same transaction, move next_push_at on and queue the
-- repeat's pushes as pending deliveries, which the delivery scheduler sends:
-- each repeat goes out once, whichever instance claimed it.
--
-- status leaves 'pending' once, by one conditional UPDATE (acknowledged,
-- expired or cancelled): whichever statement changes the row first wins, the
-- others find it no longer pending.
--
-- escalate: [{"after": seconds, "channel": slug}], at most 3, in order of
-- `after`; escalated: the slugs whose step has gone out.
-- repeats: how many times the event was pushed again; the delivery ids of
-- repeat n are derived from (event, device, n).
-- created_at: the event's time, from which `after` and the repeats count
-- (event_at stays the deliveries' partition key, and is never changed).
-- Retention: a receipt is deleted with its event's month (partitions.ts
-- deletes the receipts of dropped months, by event_at) or with its workspace.
CREATE TABLE receipts (
  id                uuid PRIMARY KEY,
  workspace_id      bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  event_id          uuid NOT NULL,
  event_at          timestamptz NOT NULL,
  channel           text NOT NULL,
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'acknowledged', 'expired', 'cancelled')),
  retry_s           integer NOT NULL CHECK (retry_s > 0),
  expires_at        timestamptz NOT NULL,
  escalate          jsonb NOT NULL DEFAULT '[]',
  escalated         text[] NOT NULL DEFAULT '{}',
  repeats           integer NOT NULL DEFAULT 0,
  next_repeat_at    timestamptz NOT NULL,
  next_push_at      timestamptz NOT NULL,
  last_push_at      timestamptz,
  acknowledged_at   timestamptz,
  acknowledged_by   uuid REFERENCES users(id) ON DELETE SET NULL,
  acknowledged_email text,           -- kept when the user is deleted: who acknowledged stays known
  acknowledged_via  text CHECK (acknowledged_via IN ('web', 'push', 'link', 'api')),
  ended_at          timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now()
);
-- The timer's claim: the due pending receipts, soonest first.
CREATE INDEX receipts_due ON receipts (next_push_at) WHERE status = 'pending';
-- The cap (HERALD_MAX_PENDING_RECEIPTS), counted under the workspace's row lock.
CREATE INDEX receipts_workspace_pending ON receipts (workspace_id) WHERE status = 'pending';
-- A receipt's event, and retention by month.
CREATE INDEX receipts_event ON receipts (event_id);
CREATE INDEX receipts_event_at ON receipts (event_at);

-- A repeat is a push delivery of its own: the same event and device as the
-- first push, so the dedup key gains the repeat's number (0: the first push,
-- and every router and receipt delivery).
ALTER TABLE deliveries ADD COLUMN repeat integer NOT NULL DEFAULT 0;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_kind_target_key;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_id_kind_target_key UNIQUE (event_id, kind, target, repeat, event_at);

-- A router with receipts = true also gets a delivery (kind 'receipt') when a
-- receipt of an event it forwarded changes state.
ALTER TABLE routers ADD COLUMN receipts boolean NOT NULL DEFAULT false;
