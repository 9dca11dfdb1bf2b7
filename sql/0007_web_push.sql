-- Web Push: a browser's PushSubscription is a third kind of device. Its
-- endpoint (a capability URL at the browser vendor's push service) is the
-- token, unique like APNs and FCM tokens; its two keys encrypt each payload
-- for that browser alone (RFC 8291): p256dh is the browser's P-256 public key
-- (65 bytes, uncompressed), auth a 16-byte secret, both as base64url.
ALTER TABLE devices DROP CONSTRAINT devices_platform_check;
ALTER TABLE devices ADD CONSTRAINT devices_platform_check CHECK (platform IN ('ios', 'android', 'web'));
ALTER TABLE devices DROP CONSTRAINT devices_provider_check;
ALTER TABLE devices ADD CONSTRAINT devices_provider_check CHECK (provider IN ('apns', 'fcm', 'webpush'));
ALTER TABLE devices ADD COLUMN p256dh text, ADD COLUMN auth text;
ALTER TABLE devices ADD CONSTRAINT devices_webpush_keys CHECK ((provider = 'webpush') = (p256dh IS NOT NULL AND auth IS NOT NULL));
