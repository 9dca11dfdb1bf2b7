-- The Deliveries page: a workspace's deliveries newest first (a delivery's id
-- begins with its event's time), all of them or only the failed ones, read
-- by a range of this index rather than a walk of the whole table. The
-- partial index holds failed rows only, so a delivery that succeeds never
-- touches it.
CREATE INDEX deliveries_workspace_list ON deliveries (workspace_id, id);
CREATE INDEX deliveries_workspace_failed_list ON deliveries (workspace_id, id) WHERE status = 'failed';
