-- Preferences (issue 33): what each member of a workspace is pushed.
--
-- A level per member and channel lives in channel_mutes, which has held the
-- mutes since sql/0003: a mute is level 'none', and the mute routes write and
-- delete exactly that, so every "muted" read is `level = 'none'`. A channel's
-- rename and deletion carry (or drop) its levels as they did its mutes. The
-- member's default level and quiet hours are one row per membership, gone
-- with it (ON DELETE CASCADE), as the levels are.
--
-- Quiet hours: minutes after midnight in the member's IANA time zone, the
-- window [from, to), crossing midnight when to < from; inside it only events
-- of priority `except` and up are pushed. All four are set together or none.
ALTER TABLE channel_mutes ADD COLUMN level text NOT NULL DEFAULT 'none'
  CONSTRAINT channel_mutes_level_check CHECK (level IN ('all', 'high', 'urgent', 'none'));

CREATE TABLE member_preferences (
  workspace_id   bigint NOT NULL,
  user_id        uuid NOT NULL,
  default_level  text NOT NULL DEFAULT 'all' CHECK (default_level IN ('all', 'high', 'urgent', 'none')),
  quiet_timezone text,
  quiet_from     smallint CHECK (quiet_from BETWEEN 0 AND 1439),
  quiet_to       smallint CHECK (quiet_to BETWEEN 0 AND 1439),
  quiet_except   smallint CHECK (quiet_except BETWEEN 1 AND 5),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id),
  FOREIGN KEY (workspace_id, user_id) REFERENCES memberships (workspace_id, user_id) ON DELETE CASCADE,
  CHECK ((quiet_timezone IS NULL) = (quiet_from IS NULL) AND (quiet_from IS NULL) = (quiet_to IS NULL)
    AND (quiet_to IS NULL) = (quiet_except IS NULL) AND (quiet_from IS NULL OR quiet_from <> quiet_to))
);

-- A push not sent because of a preference ends 'suppressed': no attempt,
-- its reason as last_error. Never 'failed'.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled', 'expired', 'suppressed'));
