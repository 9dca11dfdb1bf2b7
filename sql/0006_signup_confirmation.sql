-- Sign-up by e-mail link. A sign-up (but the very first account of a fresh
-- install, and one with an invitation) creates no account: it e-mails a
-- single-use link, and the account exists once the link is used. Someone
-- trying an address that already has an account gets the same answer, and
-- the address's owner an e-mail saying so, so sign-up never tells who has an
-- account. The password is kept hashed (argon2id) until then; the link only
-- as its SHA-256.
CREATE TABLE signup_requests (
  hash           bytea PRIMARY KEY,
  email          text NOT NULL,
  password_hash  text NOT NULL,
  workspace      text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL,
  used_at        timestamptz
);
CREATE INDEX signup_requests_email ON signup_requests (lower(email));

-- The throttle table now counts every attempt an anonymous caller can make
-- (counted before the attempt is judged), not only failed sign-ins: sign-in
-- attempts per account and per client address, and account e-mails (reset
-- links, sign-up links) per recipient and per client address.
COMMENT ON TABLE signin_failures IS 'Throttle counters in fixed windows: signin:email:, signin:ip:, mail:to:, mail:ip: keys.';
