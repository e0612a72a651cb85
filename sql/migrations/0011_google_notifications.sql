-- Migration 11: Google Play's real-time developer notifications (Pub/Sub push). They share
-- iap.store_notifications with Apple's; a purchase Google reports before (or without) the client is settled to
-- its order or recorded as an unclaimed payment to acknowledge; a quantity-based partial refund revokes units of
-- a ledger row rather than the whole row.

-- A notification whose processing needs the store's answer first (Google's purchase lookup, a partial refund's
-- voided quantity): the lookup worker asks, adds the answer to the payload and clears the flag; the processor
-- takes only notifications without it.
ALTER TABLE iap.store_notifications ADD COLUMN awaiting_lookup boolean NOT NULL DEFAULT false;
CREATE INDEX store_notifications_lookup_due ON iap.store_notifications (run_at)
    WHERE processed_at IS NULL AND awaiting_lookup;

-- Units of a ledger row revoked by quantity-based partial refunds (all of them once revoked_at is set), and the
-- units the game has handled (iap.mark_revocation_handled): the difference is owed to the game.
ALTER TABLE iap.deliveries ADD COLUMN revoked_quantity int NOT NULL DEFAULT 0 CHECK (revoked_quantity >= 0);
ALTER TABLE iap.deliveries ADD COLUMN revocation_handled_quantity int NOT NULL DEFAULT 0
    CHECK (revocation_handled_quantity >= 0);
UPDATE iap.deliveries SET revoked_quantity = quantity WHERE revoked_at IS NOT NULL;
UPDATE iap.deliveries SET revocation_handled_quantity = quantity WHERE revocation_handled_at IS NOT NULL;
CREATE INDEX deliveries_partial_revocations_owed ON iap.deliveries (user_id)
    WHERE revoked_quantity > revocation_handled_quantity;

-- Each quantity-based partial refund Google listed, once (the poll and the notification both find it): a ledger
-- row's revoked_quantity is their sum. transaction_id is the ledger id (GoogleLedgerID).
CREATE TABLE iap.google_partial_refunds (
    transaction_id  text NOT NULL,
    voided_at       timestamptz NOT NULL,
    voided_quantity int NOT NULL CHECK (voided_quantity >= 1),
    purchase_token  text,
    notification_id bigint REFERENCES iap.store_notifications (id),
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (transaction_id, voided_at)
);

-- A store's own report of a purchase nobody ordered (Google's one-time product notification): which store, the
-- token to acknowledge it with, and when Google refunds it unless it is acknowledged.
ALTER TABLE iap.unclaimed_payments ADD COLUMN store text NOT NULL DEFAULT 'apple' CHECK (store IN ('apple', 'google'));
ALTER TABLE iap.unclaimed_payments ADD COLUMN purchase_token text;
ALTER TABLE iap.unclaimed_payments ADD COLUMN acknowledge_by timestamptz;
ALTER TABLE iap.unclaimed_payments ADD CONSTRAINT unclaimed_payments_google_token
    CHECK (store <> 'google' OR purchase_token IS NOT NULL);

-- Notification processing (g-process): a ONE_TIME_PRODUCT_PURCHASED finds the order by the purchase's
-- obfuscatedExternalAccountId; the sweep that catches up partial refunds recorded while their purchase was being
-- delivered reads the recent ones only.
CREATE INDEX orders_account_id ON iap.orders (account_id) WHERE account_id IS NOT NULL;
CREATE INDEX google_partial_refunds_recorded ON iap.google_partial_refunds (recorded_at);
