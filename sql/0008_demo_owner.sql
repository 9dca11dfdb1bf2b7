-- The demo workspace that the embedded default creates at first start waits
-- for an owner: the first account to sign up takes it, so the events posted
-- with its key before anyone signed up are in that person's feed. The flag
-- is cleared in the same statement that takes it, so two sign-ups at once
-- cannot both own it.
ALTER TABLE workspaces ADD COLUMN awaits_first_owner boolean NOT NULL DEFAULT false;
