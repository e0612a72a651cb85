-- Migration 27: a reversed refund of a share (issue 47). A REFUND_REVERSED lifts a prorated refund's share as it
-- lifts a whole revocation; the units the game had already taken back are owed again, and only those: a granted
-- row keeps its granted_at, and reinstated_quantity says the units owed again (iap.owed_deliveries lists the row
-- until mark_granted clears it).
ALTER TABLE iap.deliveries ADD COLUMN reinstated_quantity int NOT NULL DEFAULT 0 CHECK (reinstated_quantity >= 0);
CREATE INDEX deliveries_reinstated_owed ON iap.deliveries (user_id) WHERE reinstated_quantity > 0;

-- revoked_quantity is the units revoked in every state: a row revoked whole after a share kept the share's units.
UPDATE iap.deliveries SET revoked_quantity = quantity WHERE revoked_at IS NOT NULL AND revoked_quantity <> quantity;

-- Shares a reversal left behind: an Apple row still holding a prorated refund's share, whose refund a processed
-- REFUND_REVERSED (result reinstated) forgot (only a reversal deletes iap.revoked_transactions' row). Lifted as the
-- reversal now lifts one: the units the game had taken back of a granted row are owed again.
UPDATE iap.deliveries d
SET revocation_percentage = NULL, revoked_quantity = 0, revocation_reason = NULL,
    reinstated_quantity = CASE WHEN d.granted_at IS NOT NULL THEN least(d.quantity, d.revocation_handled_quantity)
                               ELSE 0 END,
    revocation_handled_quantity = 0, revocation_handled_percentage = 0
WHERE d.store = 'apple' AND d.revoked_at IS NULL AND d.revocation_reason = 'refund_prorated'
  AND NOT EXISTS (SELECT 1 FROM iap.revoked_transactions r
                  WHERE r.store = 'apple' AND r.transaction_id = d.transaction_id)
  AND EXISTS (SELECT 1 FROM iap.store_notifications n
              WHERE n.store = 'apple' AND n.transaction_id = d.transaction_id
                AND n.notification_type = 'REFUND_REVERSED' AND n.result = 'reinstated');
