-- Migration 15: the indexes the support console's lookups read (issue #23). The search box finds a user, an
-- order, a transaction or a purchase token through an index each, so it answers fast with millions of orders;
-- the player page reads a user's orders newest first, and the overview counts the last day's settled orders.

-- A player's orders, newest first (orders_user_open holds only the orders not paid in full).
CREATE INDEX orders_user ON iap.orders (user_id, created_at);
-- Orders settled per 10 minutes over the last 24 hours, counted from the index alone (an index-only scan).
CREATE INDEX orders_outcome_at ON iap.orders (outcome_at, outcome) WHERE outcome_at IS NOT NULL;
-- A Google purchase token: the jobs that verified it (by its SHA-256, shorter than the token), the
-- acknowledgement owed for it, and an unclaimed payment reported with it.
CREATE INDEX jobs_google_token ON iap.jobs (receipt_sha256) WHERE kind = 'google_purchase';
CREATE INDEX google_finalizations_token ON iap.google_finalizations (purchase_token);
CREATE INDEX unclaimed_payments_token ON iap.unclaimed_payments (purchase_token) WHERE purchase_token IS NOT NULL;
-- A player's unclaimed payments (from the receipts they sent) and suspicious-receipt flags.
CREATE INDEX unclaimed_payments_user ON iap.unclaimed_payments (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX foreign_transactions_user ON iap.foreign_transactions (user_id);
-- The order page (and `receiptd show`): the store notifications about an order's purchases, by original id and
-- by Google purchase token, the original ids first delivered to it, and its webhook events in any state.
CREATE INDEX store_notifications_original ON iap.store_notifications (original_transaction_id);
CREATE INDEX store_notifications_google_token ON iap.store_notifications
    ((coalesce(payload #>> '{notification,oneTimeProductNotification,purchaseToken}',
               payload #>> '{notification,voidedPurchaseNotification,purchaseToken}')))
    WHERE store = 'google';
CREATE INDEX transaction_owners_order ON iap.transaction_owners (order_id);
CREATE INDEX webhook_events_order ON iap.webhook_events (order_id, seq);
