-- Migration 5: StoreKit 2. A job's input is an App Store receipt or a transaction (a signed JWS or a
-- transaction id); an order may bind its purchases to the account that started them; and every daemon
-- paces its calls to the App Store Server API through one shared row.

-- What receipt_data holds: a base64 receipt ('receipt') or a JWS or transaction id ('transaction').
ALTER TABLE iap.jobs ADD COLUMN kind text NOT NULL DEFAULT 'receipt' CHECK (kind IN ('receipt', 'transaction'));

-- Set by iap.enqueue_transaction: a transaction pays the order only if its appAccountToken equals it.
ALTER TABLE iap.orders ADD COLUMN app_account_token uuid;

-- One row per rate-limited API. next_slot is the earliest time the next request may go (slots are handed
-- out 1/rate seconds apart, so no second holds more than rate of them); blocked_until is the time before
-- which the API asked not to be called at all (HTTP 429 with Retry-After).
CREATE TABLE iap.api_pacing (
    api           text PRIMARY KEY,
    next_slot     timestamptz NOT NULL DEFAULT '-infinity',
    blocked_until timestamptz NOT NULL DEFAULT '-infinity'
);
INSERT INTO iap.api_pacing (api) VALUES ('apple_server_api');
