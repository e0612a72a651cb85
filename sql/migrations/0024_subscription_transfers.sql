-- Migration 24: a subscription another game account presents (a restore on a shared device) may move to that account
-- (RECEIPTD_SUBSCRIPTION_RESTORE=transfer, issue #36): its history says who had it at each change.
ALTER TABLE iap.subscription_history ADD COLUMN user_id text;
UPDATE iap.subscription_history h SET user_id = s.user_id
FROM iap.subscriptions s WHERE s.subscription_id = h.subscription_id;
