-- Migration 20: what kind of thing each purchase was, and what it cost (issue #34).
--
-- iap.products is the catalogue: the game declares each product's kind with iap.define_product (source 'game');
-- a product the App Store names in a signed transaction (its `type`) and nobody declared is recorded the first
-- time one is verified (source 'store'). store_kind keeps what the store last said, beside a declared kind that
-- may contradict it. Google sells no non-renewing subscriptions.
CREATE TABLE iap.products (
    store text NOT NULL CHECK (store = ANY ('{apple,google}'::text[])),
    product_id text NOT NULL CHECK (product_id <> ''),
    kind text NOT NULL CHECK (kind = ANY ('{consumable,non_consumable,auto_renewable,non_renewing}'::text[])),
    source text NOT NULL CHECK (source = ANY ('{game,store}'::text[])),
    store_kind text CHECK (store_kind = ANY ('{consumable,non_consumable,auto_renewable,non_renewing}'::text[])),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (store, product_id),
    CONSTRAINT products_google_kind_check CHECK (store <> 'google' OR kind <> 'non_renewing')
);

-- The ledger's new columns, each null where the store does not say (and on every row delivered before this
-- migration). They carry no CHECK: the daemon writes them from its own enums, and a CHECK is read anew for
-- every statement that inserts a ledger row (migration 19).
--   product_kind        the kind the delivery was settled as (the store's word where it gave one, else the catalogue's)
--   ownership           purchased | family_shared (any other value Apple sends, lowercased)
--   price, currency     the transaction's total in the currency's units (0.99) and its ISO 4217 code; informational
--   offer_type          introductory | promotional | offer_code | win_back (Apple's offerType)
--   offer_id            Apple's offerIdentifier, Google's offerId
--   purchase_option_id  Google's purchase option
ALTER TABLE iap.deliveries
    ADD COLUMN product_kind text,
    ADD COLUMN ownership text,
    ADD COLUMN price numeric,
    ADD COLUMN currency text,
    ADD COLUMN offer_type text,
    ADD COLUMN offer_id text,
    ADD COLUMN purchase_option_id text;

-- Prorated refunds (Apple's REFUND_PRORATED, Google's partial refunds) revoke a share of a row that stays delivered:
-- revocation_percentage (thousandths of a percent) says the share, revoked_quantity the whole units in it. The share
-- the game confirmed handling is kept beside it, so that a refund of under one unit is still handed over once, and a
-- later, larger refund hands over the difference.
ALTER TABLE iap.deliveries ADD COLUMN revocation_handled_percentage int NOT NULL DEFAULT 0;
-- Google's partial refunds recorded before: their share, and the share the game handled, from their units.
UPDATE iap.deliveries
SET revocation_percentage = (revoked_quantity::bigint * 100000 / quantity)::int,
    revocation_handled_percentage = (revocation_handled_quantity::bigint * 100000 / quantity)::int
WHERE store = 'google' AND revoked_at IS NULL AND revoked_quantity > 0;

-- Naming the player to Apple: when an operator assigns an App Store payment that carries no app account token to
-- an order that has one, the call Set App Account Token (PUT /inApps/v1/transactions/{originalTransactionId}/
-- appAccountToken) is owed, written in the assignment's transaction and made by the daemons: later notifications
-- about the purchase then name the player. `pending` until Apple takes it (`sent`) or refuses it for good
-- (`failed`, with Apple's answer in last_error); a daemon holds a row for its lease while it calls.
CREATE TABLE iap.app_account_token_calls (
    transaction_id          text PRIMARY KEY,
    original_transaction_id text NOT NULL,
    app_account_token       uuid NOT NULL,
    environment             text NOT NULL DEFAULT 'Production',
    order_id                text NOT NULL,
    state                   text NOT NULL DEFAULT 'pending' CHECK (state = ANY ('{pending,sent,failed}'::text[])),
    attempts                int NOT NULL DEFAULT 0,
    run_at                  timestamptz NOT NULL DEFAULT now(),
    locked_by               text,
    locked_until            timestamptz,
    last_error              text,
    created_at              timestamptz NOT NULL DEFAULT now(),
    sent_at                 timestamptz
);
CREATE INDEX app_account_token_calls_due ON iap.app_account_token_calls (run_at) WHERE state = 'pending';
CREATE INDEX app_account_token_calls_order ON iap.app_account_token_calls (order_id);
