-- Migration 22: auto-renewable subscriptions, the model every store shares (issue #36). A subscription is one row
-- of iap.subscriptions, kept current from the store's news (its store_time: older news changes nothing); each paid
-- period is a ledger row that names it (subscription_id, period_start, period_end), so a game that grants per period
-- gets each once through iap.owed_deliveries; iap.entitlements says what a player may use now.
CREATE TABLE iap.subscriptions (
    -- apple:<originalTransactionId>; Google's purchase token chain in part 2.
    subscription_id       text PRIMARY KEY CHECK (subscription_id <> ''),
    store                 text NOT NULL CHECK (store IN ('apple', 'google')),
    user_id               text NOT NULL,
    -- The checkout that started it, when there was one.
    order_id              text,
    -- What the player has now, and the product of the next period after a downgrade or crossgrade.
    product_id            text NOT NULL,
    renews_to             text,
    -- Apple's subscription group.
    group_id              text,
    state                 text NOT NULL CHECK (state IN ('active', 'grace_period', 'billing_retry', 'on_hold', 'paused',
                                                         'pending', 'expired', 'revoked')),
    -- The end of what the player may use now: the period's end, or the grace period's; null when not entitled.
    entitled_until        timestamptz,
    expires_at            timestamptz,
    auto_renew            boolean NOT NULL DEFAULT true,
    environment           text NOT NULL DEFAULT 'Production',
    ownership             text NOT NULL DEFAULT 'purchased' CHECK (ownership IN ('purchased', 'family_shared')),
    latest_transaction_id text,
    -- The store's time of the news the row reflects.
    store_time            timestamptz,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    CHECK (entitled_until IS NULL OR state IN ('active', 'grace_period'))
);
CREATE INDEX subscriptions_user ON iap.subscriptions (user_id);
-- The watch for lost news: an entitled subscription whose entitlement passes without any is read again.
CREATE INDEX subscriptions_entitled ON iap.subscriptions (entitled_until) WHERE state IN ('active', 'grace_period');

-- Every state a subscription went through, in order (receiptd show, the console): written by a trigger with each
-- change of state, entitlement or renewal.
CREATE TABLE iap.subscription_history (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subscription_id text NOT NULL REFERENCES iap.subscriptions ON DELETE CASCADE,
    state           text NOT NULL,
    product_id      text NOT NULL,
    entitled_until  timestamptz,
    auto_renew      boolean NOT NULL,
    store_time      timestamptz,
    at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscription_history_subscription ON iap.subscription_history (subscription_id, id);

-- Each paid period of a subscription is a ledger row naming it; null on every other row (and every row before).
ALTER TABLE iap.deliveries
    ADD COLUMN subscription_id text,
    ADD COLUMN period_start timestamptz,
    ADD COLUMN period_end timestamptz;
CREATE INDEX deliveries_subscription ON iap.deliveries (subscription_id, period_start)
    WHERE subscription_id IS NOT NULL;

-- A game that only checks entitlements declares an auto-renewable product with periods => false: its periods are
-- recorded granted, never owed.
ALTER TABLE iap.products ADD COLUMN periods boolean NOT NULL DEFAULT true;

-- Webhooks: the subscription events.
ALTER TABLE iap.webhook_events DROP CONSTRAINT webhook_events_type_check;
ALTER TABLE iap.webhook_events ADD CONSTRAINT webhook_events_type_check
    CHECK (type IN ('order.verified', 'delivery.revoked', 'delivery.reinstated', 'payment.unclaimed', 'order.failed',
                    'consent.rescinded', 'refund.requested', 'subscription.started', 'subscription.renewed',
                    'subscription.state_changed', 'subscription.expired', 'subscription.revoked',
                    'subscription.transferred'));
