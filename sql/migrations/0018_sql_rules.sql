-- Migration 18: rules written once (issue #32). A webhook event's id is its column's default, so the triggers of
-- sql/routines/09_webhooks.sql no longer spell it out each; and a provisional grant handed back because its
-- verification was cancelled or the game closed its order is `cancelled` (iap.owed_revocations names it
-- `provisional_cancelled`), which neither refutes it nor costs the player their trust.

-- Daemons of the previous build write the id themselves, in the same shape: both hold during an upgrade.
ALTER TABLE iap.webhook_events ALTER COLUMN id SET DEFAULT 'msg_' || replace(gen_random_uuid()::text, '-', '');

ALTER TABLE iap.provisional_grants DROP CONSTRAINT provisional_grants_state_check;
ALTER TABLE iap.provisional_grants ADD CONSTRAINT provisional_grants_state_check
    CHECK (state IN ('unconfirmed', 'confirmed', 'refuted', 'cancelled'));

-- The grants whose revocation the game still owes: a cancelled one too.
DROP INDEX iap.provisional_grants_revocations_owed;
CREATE INDEX provisional_grants_revocations_owed ON iap.provisional_grants (user_id)
    WHERE (state IN ('refuted', 'cancelled') OR replaced) AND revocation_handled_at IS NULL;
