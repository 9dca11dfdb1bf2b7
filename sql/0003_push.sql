-- Push: the people of a workspace, their devices, and the channels they muted.

-- A user is a person, across workspaces; the accounts issue adds sign-in.
CREATE TABLE users (
  id          uuid PRIMARY KEY,
  email       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email ON users (lower(email));

CREATE TABLE memberships (
  workspace_id  bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id       uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role          text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'admin', 'member')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

-- Bearer tokens of users for the device API (`hrlu_…`); only the SHA-256 is kept.
CREATE TABLE user_tokens (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  hash        bytea NOT NULL UNIQUE,
  prefix      text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);

-- Every member belongs to every channel of the workspace unless muted here.
CREATE TABLE channel_mutes (
  workspace_id  bigint NOT NULL,
  user_id       uuid NOT NULL,
  channel       text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id, channel),
  FOREIGN KEY (workspace_id, user_id) REFERENCES memberships (workspace_id, user_id) ON DELETE CASCADE
);

-- A device belongs to a user, not to a workspace: a person in two workspaces
-- registers each phone once and is pushed once per device per event.
CREATE TABLE devices (
  id            uuid PRIMARY KEY,
  user_id       uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  platform      text NOT NULL CHECK (platform IN ('ios', 'android')),
  provider      text NOT NULL CHECK (provider IN ('apns', 'fcm')),
  token         text NOT NULL,
  environment   text NOT NULL DEFAULT 'production' CHECK (environment IN ('sandbox', 'production')),
  topic         text,             -- APNs topic (bundle id); default APNS_TOPIC
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider, token)
);
CREATE INDEX devices_user ON devices (user_id);
