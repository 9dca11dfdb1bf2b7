-- Accounts: sign-in with a password, sessions for the web and the app,
-- password resets, invitations, sign-in throttling; the daily usage the
-- dashboard charts; and the indexes of the feed's filters.

-- argon2id (Bun.password), NULL until the person sets a password (an operator
-- may add members who then use a password reset to choose one).
ALTER TABLE users ADD COLUMN password_hash text;

-- user_tokens holds every bearer secret of a person: app tokens (hrlu_…,
-- from sign-in or from the operator) and web sessions (hrls_…, in an
-- HttpOnly cookie, with the CSRF token their forms must echo). Only hashes.
ALTER TABLE user_tokens ADD COLUMN kind text NOT NULL DEFAULT 'app' CHECK (kind IN ('app', 'web'));
ALTER TABLE user_tokens ADD COLUMN csrf text;
ALTER TABLE user_tokens ADD COLUMN expires_at timestamptz;
ALTER TABLE user_tokens ADD COLUMN last_used_at timestamptz;
CREATE INDEX user_tokens_user ON user_tokens (user_id);

CREATE TABLE password_resets (
  hash        bytea PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX password_resets_user ON password_resets (user_id);

CREATE TABLE invitations (
  id            uuid PRIMARY KEY,
  workspace_id  bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  email         text NOT NULL,
  role          text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  hash          bytea NOT NULL UNIQUE,
  invited_by    uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  accepted_at   timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX invitations_workspace ON invitations (workspace_id, created_at);

-- Failed sign-ins per account and per client address, in fixed windows; the
-- rows are shared by every API instance.
CREATE TABLE signin_failures (
  key           text PRIMARY KEY,        -- 'email:<lower-cased address>' or 'ip:<address>'
  failures      integer NOT NULL,
  window_start  timestamptz NOT NULL
);

-- Events accepted per workspace and UTC day, counted by the ingest batch in
-- the transaction that spends the quota: the usage chart reads 30 rows
-- instead of counting millions of events.
CREATE TABLE usage_daily (
  workspace_id  bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  day           date NOT NULL,
  events        bigint NOT NULL,
  PRIMARY KEY (workspace_id, day)
);

-- The feed's filters. Channel already has events_channel_feed; the newest
-- first order comes from the id (a UUIDv7) in every index.
CREATE INDEX events_key_feed ON events (workspace_id, event, id);
CREATE INDEX events_tags ON events USING gin (tags);
-- Text search over title and message: words, any language ('simple' does no
-- stemming), matched as prefixes.
CREATE INDEX events_text ON events USING gin (to_tsvector('simple', coalesce(title, '') || ' ' || message));
