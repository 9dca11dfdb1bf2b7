-- A router's health, shared by every worker (src/delivery/health.ts): the
-- pool threads' circuits (src/delivery/circuit.ts) live in memory, one per
-- thread, and the retry scheduler of every process must know that a
-- destination is down to park its deliveries as a whole, rather than take
-- each of them again and again only to have the circuit put it back.
--
-- A row exists while the router's destination is failing: made when a
-- circuit opens, deleted by the first success (or when an owner mends the
-- router). open_until: no delivery of the router is claimed before it (then
-- one, the trial). failing_since: when it began, for "failing" and the
-- automatic disabling. notified_at and disabled_at are each set once, by the
-- one statement that claims the transition, so that one e-mail goes out
-- whatever the number of workers.
CREATE TABLE router_health (
  router_id      uuid PRIMARY KEY REFERENCES routers(id) ON DELETE CASCADE,
  open_until     timestamptz NOT NULL,
  failing_since  timestamptz NOT NULL DEFAULT now(),
  last_error     text,
  last_failure_at timestamptz NOT NULL DEFAULT now(),
  notified_at    timestamptz,
  disabled_at    timestamptz
);

-- Deliveries an owner cancelled (src/delivery/health.ts settleRouterDeliveries):
-- final like 'failed', but not a failure of the destination, and not replayed
-- with the failed ones.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled'));

-- The fair claim (deliveries.ts claimDueDeliveries) walks the pending
-- deliveries' distinct (workspace, target) pairs, one index probe each, and
-- takes the due ones of each pair that is not parked, oldest first. A parked
-- router's pending rows are never read.
CREATE INDEX deliveries_pending_target ON deliveries (workspace_id, target, next_attempt_at) WHERE status = 'pending';
