-- Migration 25: Google Play subscriptions (issue #37). A subscription's first period is acknowledged through
-- purchases.subscriptions.acknowledge, owed like a one-time purchase's acknowledgement; and a Google subscription
-- remembers the purchase token it is read again with (the latest of its chain, after an upgrade or a resubscription).
ALTER TABLE iap.google_finalizations DROP CONSTRAINT google_finalizations_action_check;
ALTER TABLE iap.google_finalizations ADD CONSTRAINT google_finalizations_action_check
    CHECK (action IN ('acknowledge', 'consume', 'acknowledge_subscription'));

ALTER TABLE iap.subscriptions ADD COLUMN purchase_token text;
-- Real-time notifications name a subscription by its token.
CREATE INDEX subscriptions_purchase_token ON iap.subscriptions (purchase_token) WHERE purchase_token IS NOT NULL;
