-- A delivery's first attempt, when it succeeded, is kept in the delivery's
-- own row instead of a row of delivery_attempts (src/delivery/attempts.ts):
-- most deliveries succeed at once, and each then costs one row and one
-- primary-key entry instead of two of each. Failed attempts, retries and
-- any attempt after a replay keep their rows. The delivery log reads both
-- (attemptLog) and shows the same attempts as before.
--
-- first_started_at: when the kept attempt started; NULL when the first
-- attempt has a row of its own (or none was made). first_duration_ms and
-- first_response: its duration and the first KiB of the answer. Its status
-- is last_status, which nothing changes while the delivery stays succeeded;
-- a replay copies it to first_status before later attempts overwrite it.
-- An attempt kept this way is ok and has no error.
--
-- The columns live in the delivery row, so retention drops them with its
-- month's partition. Nullable and without a default, they are added to the
-- partitioned table and every partition in the catalogue only: no partition
-- is rewritten or scanned, and the lock is held for a moment. Deliveries
-- written before keep their attempt rows.
ALTER TABLE deliveries
  ADD COLUMN first_started_at timestamptz,
  ADD COLUMN first_duration_ms integer,
  ADD COLUMN first_status integer,
  ADD COLUMN first_response text;
