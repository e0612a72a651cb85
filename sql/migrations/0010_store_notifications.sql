-- What the stores tell the server after delivery: App Store Server Notifications V2 (and Google's real-time
-- developer notifications next), revocations handed to the game, consumption answers, and the catch-up cursor.

-- Every notification ever accepted, verified, once per store and id. The intake inserts it (answering the store
-- only after the commit); the daemons process it later, exactly once: processing and `processed_at` commit
-- together. `payload` is {"notification": <the decoded payload>, "transaction": <the decoded nested transaction>}.
CREATE TABLE iap.store_notifications (
    id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    store                   text NOT NULL CHECK (store IN ('apple', 'google')),
    notification_id         text NOT NULL,
    notification_type       text NOT NULL,
    subtype                 text,
    transaction_id          text,
    original_transaction_id text,
    environment             text,
    signed_at               timestamptz,
    received_at             timestamptz NOT NULL DEFAULT now(),
    source                  text NOT NULL CHECK (source IN ('push', 'history')),
    processed_at            timestamptz,
    result                  text,
    error                   text,
    payload                 jsonb NOT NULL,
    -- Processing that failed transiently (a lock, a lost connection) is tried again from run_at.
    attempts                int NOT NULL DEFAULT 0,
    run_at                  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store, notification_id)
);
CREATE INDEX store_notifications_unprocessed ON iap.store_notifications (run_at, id) WHERE processed_at IS NULL;
CREATE INDEX store_notifications_transaction ON iap.store_notifications (transaction_id);
CREATE INDEX store_notifications_received ON iap.store_notifications (received_at);

-- Every revocation a store reported, whether or not the ledger holds the transaction: one not yet delivered is
-- remembered here, and no receipt, signed transaction or lookup delivers it afterwards.
CREATE TABLE iap.revoked_transactions (
    store                 text NOT NULL CHECK (store IN ('apple', 'google')),
    transaction_id        text NOT NULL,
    revoked_at            timestamptz NOT NULL,
    revocation_reason     text NOT NULL,
    revocation_percentage int,
    notification_id       bigint REFERENCES iap.store_notifications (id),
    recorded_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (store, transaction_id)
);

-- A prorated refund's share (Apple's revocationPercentage, in thousandths of a percent), and when the game
-- handled the revocation (iap.mark_revocation_handled).
ALTER TABLE iap.deliveries ADD COLUMN revocation_percentage int;
ALTER TABLE iap.deliveries ADD COLUMN revocation_handled_at timestamptz;
CREATE INDEX deliveries_revocations_owed ON iap.deliveries (user_id, revoked_at)
    WHERE revoked_at IS NOT NULL AND revocation_handled_at IS NULL;

-- Whether a player agreed that consumption information about them is sent to Apple (iap.set_consumption_consent).
CREATE TABLE iap.consumption_consent (
    user_id    text PRIMARY KEY,
    consented  boolean NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now()
);

-- Apple's CONSUMPTION_REQUESTs and receiptd's answers (Send Consumption Information v2), one per notification.
CREATE TABLE iap.consumption_requests (
    notification_id bigint PRIMARY KEY REFERENCES iap.store_notifications (id),
    transaction_id  text NOT NULL,
    environment     text NOT NULL,
    user_id         text,
    requested_at    timestamptz NOT NULL,                 -- the notification's signedDate
    overdue_at      timestamptz NOT NULL,                 -- unsent by then: iap.stuck_jobs says consumption_overdue
    state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'not_consented', 'failed')),
    run_at          timestamptz NOT NULL DEFAULT now(),
    attempts        int NOT NULL DEFAULT 0,
    locked_by       text,
    locked_until    timestamptz,
    last_error      text,
    delivery_status text,                                 -- what was sent: DELIVERED or UNDELIVERED_OTHER
    request_body    jsonb,
    sent_at         timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX consumption_requests_due ON iap.consumption_requests (run_at) WHERE state = 'pending';

-- Where Get Notification History last got to, per environment, with its last success and failure.
CREATE TABLE iap.notification_history_cursor (
    environment   text PRIMARY KEY CHECK (environment IN ('Production', 'Sandbox')),
    end_ms        bigint NOT NULL,
    polled_at     timestamptz,
    succeeded_at  timestamptz,
    failed_at     timestamptz,
    last_error    text,
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- A purchase Apple reported itself (ONE_TIME_CHARGE) that no order matches is an unclaimed payment with no
-- order, user or job behind it; its app account token helps support find the player.
ALTER TABLE iap.unclaimed_payments ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE iap.unclaimed_payments ALTER COLUMN order_id DROP NOT NULL;
ALTER TABLE iap.unclaimed_payments ALTER COLUMN job_id DROP NOT NULL;
ALTER TABLE iap.unclaimed_payments ADD COLUMN app_account_token uuid;
ALTER TABLE iap.unclaimed_payments ADD COLUMN notification_id bigint REFERENCES iap.store_notifications (id);

-- Operators (receiptd status): the last TEST notification of each environment, found without reading every
-- notification ever received.
CREATE INDEX store_notifications_tests ON iap.store_notifications (environment, received_at)
    WHERE notification_type = 'TEST';

-- Notification processing (n-process): a ONE_TIME_CHARGE and a CONSUMPTION_REQUEST find the order by the
-- transaction's appAccountToken; the sweep that revokes ledger rows a settle wrote while a revocation of the
-- same transaction was being recorded reads the recent memory only.
CREATE INDEX orders_app_account_token ON iap.orders (app_account_token) WHERE app_account_token IS NOT NULL;
CREATE INDEX revoked_transactions_recorded ON iap.revoked_transactions (recorded_at);
