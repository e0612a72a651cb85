-- Migration 26: the game's login read and the retention purge, at a large ledger's size (issue #47, items 10 and 11).

-- iap.entitlements(user_id) reads a player's non-consumables by user_id; no index served that half, so every login
-- scanned the whole ledger. The predicate is the function's, as written; store and product_id are what it returns.
CREATE INDEX deliveries_owned ON iap.deliveries (user_id, store, product_id)
    WHERE product_kind = 'non_consumable' AND revoked_at IS NULL;

-- A finished job that can never be deleted (the ledger names it, or a kept job's superseded_by does) is marked kept
-- by the purge the first time it finds it, and the purge walks only this index, which leaves kept jobs out: each
-- finished job is visited once after it ages, not on every pass for as long as the ledger lives.
ALTER TABLE iap.jobs ADD COLUMN kept boolean NOT NULL DEFAULT false;
CREATE INDEX jobs_purgeable ON iap.jobs (finished_at, id)
    WHERE state IN ('succeeded', 'failed', 'superseded', 'cancelled') AND NOT kept;
