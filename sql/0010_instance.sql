-- This database's identity. The JetStream stream a Herald uses carries it in
-- its description, so that a Herald refuses a stream holding the events of
-- another database: two deployments on one NATS with the same NATS_STREAM
-- would otherwise deliver each other's events through their own routers.
CREATE TABLE herald_instance (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  id uuid NOT NULL DEFAULT gen_random_uuid()
);
INSERT INTO herald_instance DEFAULT VALUES;
