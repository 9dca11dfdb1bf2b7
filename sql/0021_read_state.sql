-- Read state per member (src/ingest/read_state.ts): which events a member has
-- read or archived, stored so that it never grows with members × events.
--
-- A watermark says "read (or archived) through event X": every event whose id
-- (a UUIDv7, ordered by time) is at or below X. One row per member with
-- channel NULL covers all channels; one row per member and channel covers
-- that channel. Marking "everything before" moves a watermark: one row.
-- An explicit mark is kept only for an event above the watermarks that cover
-- it; moving a watermark deletes the marks it covers. So a member holds at
-- most (channels + 1) watermark rows, plus the marks of events newer than
-- their watermarks (at most 100 per call), which go with retention.
--
-- archived implies read: an event at or below an archive watermark, or
-- marked archived, is archived; else read if at or below a read watermark or
-- marked read; else unread.
--
-- Everything goes with the membership (a removed member, a deleted
-- workspace); a channel's watermarks follow its rename and go with it.
CREATE TABLE read_watermarks (
  workspace_id     bigint NOT NULL,
  user_id          uuid NOT NULL,
  channel          text,            -- NULL: all channels
  read_through     uuid,
  archived_through uuid,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT read_watermarks_key UNIQUE NULLS NOT DISTINCT (workspace_id, user_id, channel),
  FOREIGN KEY (workspace_id, user_id) REFERENCES memberships (workspace_id, user_id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, channel) REFERENCES channels (workspace_id, slug) ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX read_watermarks_channel ON read_watermarks (workspace_id, channel);

-- event_at is the event's time (from its id): retention deletes the marks of
-- the months it drops (src/core/partitions.ts), by read_marks_event_at.
CREATE TABLE read_marks (
  workspace_id  bigint NOT NULL,
  user_id       uuid NOT NULL,
  event_id      uuid NOT NULL,
  state         text NOT NULL CHECK (state IN ('read', 'archived')),
  event_at      timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, user_id, event_id),
  FOREIGN KEY (workspace_id, user_id) REFERENCES memberships (workspace_id, user_id) ON DELETE CASCADE
);
CREATE INDEX read_marks_event_at ON read_marks (event_at);

-- Notifications to close on a member's other devices (an event read
-- elsewhere): a small queue the worker's loop claims FOR UPDATE SKIP LOCKED
-- and deletes in the same statement, then sends one Web Push "dismiss"
-- message per device. Best effort: no delivery rows, no retries; a row
-- older than a minute is dropped unsent (the notification is stale anyway).
CREATE TABLE push_dismissals (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id  bigint NOT NULL,
  user_id       uuid NOT NULL,
  tags          text[] NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (workspace_id, user_id) REFERENCES memberships (workspace_id, user_id) ON DELETE CASCADE
);
