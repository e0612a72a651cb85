-- Migration 7: an unclaimed payment keeps the purchase's original transaction id, so that assigning it records
-- the purchase's real first owner in iap.transaction_owners (a renewal or restore shares its original id with
-- the first purchase). Rows recorded before this migration, and by daemons that predate it, leave it NULL:
-- iap.assign_payment then falls back to the transaction id, as it did until now.
ALTER TABLE iap.unclaimed_payments ADD COLUMN original_transaction_id text;
