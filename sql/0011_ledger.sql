-- The outbox is the ledger of the fan-out. A row lists the events of one
-- committed batch, and stays until every one of them has had its fan-out
-- recorded (the delivery rows of its routers and push targets), not only
-- until the bus has them: JetStream may lose what it acknowledged (a limit,
-- an age, a lost store, a deleted stream), and the relay publishes again
-- whatever is still owed (src/delivery/relay.ts).
--
-- done: bit i is set once the fan-out of event_ids[i + 1] is recorded, by
--   the worker, in the statement that records its deliveries; null until the
--   first. A row whose bits are all set is deleted.
-- published: false while the row waits for the relay (its writer's hand-off
--   to the bus failed); true once some process published it, or while its
--   writer's hand-off is under way.
ALTER TABLE outbox ADD COLUMN done varbit;
ALTER TABLE outbox ADD COLUMN published boolean NOT NULL DEFAULT true;
-- Workers set bits in a row a few times before it is deleted: room on each
-- page keeps those updates HOT (no index entry, and the old versions pruned
-- in place without waiting for vacuum).
ALTER TABLE outbox SET (fillfactor = 50);
