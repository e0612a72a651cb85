-- Migration 29: a re-read the store refuses for good is retried (issue #47). Get All Subscription Statuses' 404
-- 4040010, or Google's 404 or 410, used to end a subscription's re-reads for good (read_due_at NULL), silently: a
-- renewal whose news was lost stayed lost. Now such a subscription is read again every
-- RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL until the store answers, news comes, or its entitlement ended more than
-- 60 days ago; read_failing_since says since when it fails (iap.stuck_jobs, receiptd status, the gauge).
ALTER TABLE iap.subscriptions ADD COLUMN read_failing_since timestamptz;
-- The failing ones are counted by the daemons' gauge from this index alone.
CREATE INDEX subscriptions_read_failing ON iap.subscriptions (read_failing_since) WHERE read_failing_since IS NOT NULL;

-- Rows a refusal turned off before this migration are read again at once: one the store still refuses is then
-- failing, and retried.
UPDATE iap.subscriptions SET read_due_at = now(), read_attempts = 0
WHERE read_due_at IS NULL AND read_error IS NOT NULL
  AND coalesce(entitled_until, expires_at, created_at) > now() - interval '60 days';
