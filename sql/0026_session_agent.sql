-- The browser or program that opened a session (its User-Agent, cut to 200
-- characters), so that a person can tell their sessions apart on the account
-- page (GET /v1/me/sessions) before ending one. NULL for sessions opened
-- before this migration and for tokens the operator issued.
ALTER TABLE user_tokens ADD COLUMN user_agent text;
