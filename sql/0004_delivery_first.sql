-- Deliveries are now written once their first attempt is made, with ids that
-- are a hash of (event, kind, target) (workers/send.ts), so the row of a
-- delivery may be written after its router was deleted. Past deliveries keep
-- the id of the router they went to, deleted or not, rather than losing it.
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_router_id_fkey;

-- An event's createdAt as the API shows it everywhere: UTC with milliseconds
-- and a Z, as JavaScript's toISOString writes it (the API process hands events
-- it has just committed to the bus without reading them back).
CREATE FUNCTION iso_time(t timestamptz) RETURNS text
  LANGUAGE sql STABLE STRICT PARALLEL SAFE
  RETURN to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
