-- The delivery backlog's gauges (src/delivery/metrics.ts), read at every
-- scrape of every process: the age of the oldest pending delivery, and the
-- deliveries that failed for good in the last hour, each a short range of an
-- index rather than a walk of every pending or failed row.
--
-- Both are partial: a delivery whose first attempt succeeds (nearly all of
-- them, written as 'succeeded' by the fan-out) never touches either. A
-- pending row costs one more index entry per change of its next attempt
-- (a retry's lease, a circuit's hold), a failed row one entry.
-- Built once over the existing deliveries, in this migration's transaction.
CREATE INDEX deliveries_pending_age ON deliveries (event_at) WHERE status = 'pending';
CREATE INDEX deliveries_failed_at ON deliveries (updated_at) WHERE status = 'failed';
