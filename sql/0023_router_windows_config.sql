-- A router's throttle and digest (DECISIONS.md, "Scheduling, throttling,
-- digests"), as the API stored them once checked (src/delivery/router_windows.ts):
--   throttle: {"limit": n, "per": seconds, "key": "<template>"}
--   digest:   {"window": seconds, "key": "<template>", "max": n, "bypassPriority": 1-5 | absent}
-- Null: none. A router has at most one of the two.
ALTER TABLE routers ADD COLUMN throttle jsonb;
ALTER TABLE routers ADD COLUMN digest jsonb;
ALTER TABLE routers ADD CONSTRAINT routers_one_window CHECK (throttle IS NULL OR digest IS NULL);
