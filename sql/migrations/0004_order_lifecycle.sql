-- Migration 4: orders the way games make them: a checkout before payment, a status the game moves on by
-- granting what was delivered, who sent each receipt, and payments that no order claimed.

-- Set by iap.create_order at checkout; NULL for an order first seen with its receipt (no purchase-date bound).
ALTER TABLE iap.orders ADD COLUMN checkout_at timestamptz;

CREATE TYPE iap.order_status AS ENUM ('pending', 'verified', 'finished', 'closed');
ALTER TABLE iap.orders ADD COLUMN status iap.order_status NOT NULL DEFAULT 'pending';

-- NULL until the game confirms it granted the goods (iap.mark_granted). What was delivered before this
-- migration was handed over by the outcome alone, as games did until now: it counts as granted, so no game
-- is asked to grant it a second time.
ALTER TABLE iap.deliveries ADD COLUMN granted_at timestamptz;
UPDATE iap.deliveries SET granted_at = delivered_at;
UPDATE iap.orders SET status = 'finished' WHERE delivered_quantity > 0;
-- iap.owed_deliveries reads a user's ungranted rows; granted ones leave the index.
CREATE INDEX deliveries_owed ON iap.deliveries (user_id, delivered_at) WHERE granted_at IS NULL;

-- Who sent the job's receipt: the order's owner, or another account on the same device.
ALTER TABLE iap.jobs ADD COLUMN submitted_by text;

-- Verified purchases that paid no order of the receipt's owner (the client lost its order id), once each.
CREATE TABLE iap.unclaimed_payments (
    transaction_id    text PRIMARY KEY,
    product_id        text NOT NULL,
    quantity          int NOT NULL CHECK (quantity >= 1),
    purchase_date     timestamptz,
    environment       text,
    user_id           text NOT NULL,     -- the owner of the order whose receipt carried it
    order_id          text NOT NULL,     -- that order
    job_id            bigint NOT NULL,   -- the job that found it
    first_seen_at     timestamptz NOT NULL DEFAULT now(),
    assigned_order_id text,              -- the order iap.assign_payment (or a later receipt) delivered it to
    assigned_at       timestamptz
);
CREATE INDEX unclaimed_payments_open ON iap.unclaimed_payments (first_seen_at) WHERE assigned_at IS NULL;
