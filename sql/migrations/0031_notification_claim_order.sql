-- Migration 31: the notification claim at a storm's size (issue #48, items 3 and 9). The claim takes the due
-- notifications in Apple's order (coalesce(signed_at, received_at), id), each only when no earlier one of its
-- transaction is still unprocessed. The only partial index was on (run_at, id): every claim read and sorted the whole
-- backlog, and hashed it again for its NOT EXISTS, about 1.9 s a call with 50,000 DID_RENEW waiting.
--
-- This one is in the claim's order: the claim walks it and stops after its batch. A notification waiting for Google's
-- answer (awaiting_lookup) is not the processor's; the lookup worker claims it by store_notifications_lookup_due.
CREATE INDEX store_notifications_claim ON iap.store_notifications ((coalesce(signed_at, received_at)), id)
    WHERE processed_at IS NULL AND NOT awaiting_lookup;

-- The claim's NOT EXISTS probes the waiting notifications of one transaction by both its conditions; `receiptd
-- status` counts the waiting by it too.
CREATE INDEX store_notifications_waiting_transaction ON iap.store_notifications (transaction_id, store)
    WHERE processed_at IS NULL;

-- Nothing orders by run_at any more, and the (run_at, id) index lured the claim back to a sort whenever the
-- statistics were taken while nothing waited, as they are between storms.
DROP INDEX iap.store_notifications_unprocessed;
