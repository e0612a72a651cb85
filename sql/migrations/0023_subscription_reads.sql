-- Migration 23: the re-read of subscriptions (issue #36). A subscription's news may be lost (a notification never
-- delivered, a client that never reports a renewal): each row says when it is next read again from the store
-- (read_due_at), which every write of the row sets — at once after a store's news, else when its entitlement
-- passes — and the daemons read due rows through the App Store Server API's shared pacing, each claimed for a lease
-- (read_leased_until) so that a daemon dying mid-read leaves it to the next, and retried with backoff
-- (read_attempts, read_error) until the store answers.
ALTER TABLE iap.subscriptions
    ADD COLUMN read_due_at       timestamptz,
    ADD COLUMN read_leased_until timestamptz,
    ADD COLUMN read_attempts     int NOT NULL DEFAULT 0,
    ADD COLUMN read_error        text,
    ADD COLUMN read_at           timestamptz;
CREATE INDEX subscriptions_read_due ON iap.subscriptions (read_due_at) WHERE read_due_at IS NOT NULL;

-- Rows written before this migration are watched from their entitlement's end.
UPDATE iap.subscriptions SET read_due_at = entitled_until WHERE state IN ('active', 'grace_period');


-- Subscriptions by state (receiptd status, the daemons' gauges) are counted from this index alone.
CREATE INDEX subscriptions_state ON iap.subscriptions (state);
