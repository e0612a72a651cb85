-- Migration 6: Google Play beside the App Store. One order table and one ledger for both stores; Google's
-- purchases must be acknowledged within three days or Google refunds them, so the acknowledgement owed for
-- each delivered purchase is written with its ledger row and worked off durably; voided purchases are recorded.

-- A job's input may now be a Google Play purchase token.
ALTER TABLE iap.jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE iap.jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('receipt', 'transaction', 'google_purchase'));

-- Set by iap.enqueue_google_purchase: a purchase pays the order only if its obfuscatedExternalAccountId equals it.
ALTER TABLE iap.orders ADD COLUMN account_id text;

-- The ledger holds both stores' purchases; a transaction is unique per store (Google's key is the orderId, or
-- the purchase token's SHA-256 for a test purchase without one). Revocations are recorded, nothing deleted.
ALTER TABLE iap.deliveries ADD COLUMN store text NOT NULL DEFAULT 'apple' CHECK (store IN ('apple', 'google'));
ALTER TABLE iap.deliveries ADD COLUMN revoked_at timestamptz;
ALTER TABLE iap.deliveries ADD COLUMN revocation_reason text;
CREATE UNIQUE INDEX deliveries_store_transaction ON iap.deliveries (store, transaction_id);

-- One row per delivered Google purchase that Google must still be told about (acknowledge or consume),
-- inserted in the settle that writes its ledger row, so a crash between delivery and acknowledgement still
-- acknowledges. done_at is set once Google confirmed it (or said it was already acknowledged).
CREATE TABLE iap.google_finalizations (
    transaction_id text PRIMARY KEY,
    order_id       text NOT NULL,
    product_id     text NOT NULL,
    purchase_token text NOT NULL,
    action         text NOT NULL CHECK (action IN ('acknowledge', 'consume')),
    created_at     timestamptz NOT NULL DEFAULT now(),
    -- From then on the owed call shows in iap.stuck_jobs (GOOGLE_PLAY_FINALIZE_OVERDUE after delivery).
    overdue_at     timestamptz NOT NULL DEFAULT now() + interval '1 hour',
    run_at         timestamptz NOT NULL DEFAULT now(),
    attempts       int NOT NULL DEFAULT 0,
    locked_by      text,
    locked_until   timestamptz,
    last_error     text,
    done_at        timestamptz
);
CREATE INDEX google_finalizations_due ON iap.google_finalizations (run_at) WHERE done_at IS NULL;

-- Where the voided-purchases poll of each package got to.
CREATE TABLE iap.google_voided_cursor (
    package_name   text PRIMARY KEY,
    start_time_ms  bigint NOT NULL,
    polled_at      timestamptz
);
