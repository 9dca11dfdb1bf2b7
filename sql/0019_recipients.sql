-- An event sent `to` people (issue 33): the user ids of its recipients, the
-- members it was resolved to at ingest. NULL: no `to`, the event is for its
-- channel's whole audience. Such an event is shown to its recipients and to
-- the workspace's owners and admins only (src/ingest/event_reads.ts). A
-- column with no default: adding it rewrites no partition.
ALTER TABLE events ADD COLUMN recipients uuid[];
