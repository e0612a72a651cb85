-- Migration 12: seed 004's trust levels. Each player has a level per store (trusted or untrusted); a trusted
-- player's order whose store is failing may be granted provisionally, before verification ends, and a grant
-- that verification refutes is handed back to the game like a refund.

-- A player's level in one store. No row: the store's initial level (iap.trust_policy). streak counts the
-- orders verified in a row while untrusted; changed_at and reason describe the last change of `trusted`.
CREATE TABLE iap.user_trust (
    user_id    text NOT NULL,
    store      text NOT NULL CHECK (store IN ('apple', 'google')),
    trusted    boolean NOT NULL,
    streak     int NOT NULL DEFAULT 0 CHECK (streak >= 0),
    changed_at timestamptz NOT NULL DEFAULT now(),
    reason     text NOT NULL,
    -- The order whose verification changed it last; NULL for an operator's setting.
    order_id   text,
    PRIMARY KEY (user_id, store)
);
CREATE INDEX user_trust_untrusted ON iap.user_trust (store) WHERE NOT trusted;

-- The trust rules the daemons apply (RECEIPTD_TRUST_INITIAL_APPLE, RECEIPTD_TRUST_INITIAL_GOOGLE,
-- RECEIPTD_TRUST_RESTORE_AFTER), written by each `receiptd run` at start, so that the database's own triggers
-- follow them. One row; these defaults until a daemon starts.
CREATE TABLE iap.trust_policy (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    initial_apple  boolean NOT NULL DEFAULT true,
    initial_google boolean NOT NULL DEFAULT false,
    restore_after  int NOT NULL DEFAULT 3 CHECK (restore_after >= 1),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
INSERT INTO iap.trust_policy DEFAULT VALUES;

-- One provisional grant per order: the order's product and quantity, owed to the game as the ledger row
-- `provisional:<order_id>` until verification confirms it (a transaction paid the order) or refutes it (the
-- order ended unpaid), which hands it back through iap.owed_revocations.
CREATE TABLE iap.provisional_grants (
    order_id              text PRIMARY KEY REFERENCES iap.orders (order_id),
    user_id               text NOT NULL,
    store                 text NOT NULL CHECK (store IN ('apple', 'google')),
    product_id            text NOT NULL,
    quantity              int NOT NULL CHECK (quantity >= 1),
    -- The job that was failing (no reference: retention may delete it), and why the grant was made.
    job_id                bigint,
    cause                 text NOT NULL CHECK (cause IN ('store_failing', 'breaker_open')),
    created_at            timestamptz NOT NULL DEFAULT now(),
    -- When the game confirmed granting it (iap.mark_granted).
    granted_at            timestamptz,
    state                 text NOT NULL DEFAULT 'unconfirmed' CHECK (state IN ('unconfirmed', 'confirmed', 'refuted')),
    resolved_at           timestamptz,
    -- For a refuted grant: the order's outcome that refuted it.
    refuted_by            iap.outcome,
    -- A grant the game took, confirmed by a payment of other units than it granted: exchanged for the real
    -- ledger rows, which are owed, and handed back like a refuted one.
    replaced              boolean NOT NULL DEFAULT false,
    -- When the game handled the revocation of a refuted or replaced grant.
    revocation_handled_at timestamptz,
    CHECK ((state = 'unconfirmed') = (resolved_at IS NULL)),
    CHECK (NOT replaced OR state = 'confirmed')
);
CREATE INDEX provisional_grants_unconfirmed ON iap.provisional_grants (user_id) WHERE state = 'unconfirmed';
CREATE INDEX provisional_grants_resolved ON iap.provisional_grants (resolved_at) WHERE resolved_at IS NOT NULL;
CREATE INDEX provisional_grants_revocations_owed ON iap.provisional_grants (user_id)
    WHERE (state = 'refuted' OR replaced) AND revocation_handled_at IS NULL;
