-- Migration 21: refund requests answered with the game's facts. Apple's CONSUMPTION_REQUESTs (and, with Google's
-- chargeback reviews, Google's pendingRefundReviewNotification) become one table, iap.refund_requests: the game is
-- asked first and answers with iap.answer_refund_request, else a policy answers, before each store's deadline.
ALTER TABLE iap.consumption_requests RENAME TO refund_requests;
ALTER INDEX iap.consumption_requests_due RENAME TO refund_requests_due_old;
DROP INDEX iap.refund_requests_due_old;
ALTER TABLE iap.refund_requests DROP CONSTRAINT consumption_requests_state_check;
ALTER TABLE iap.refund_requests RENAME COLUMN requested_at TO signed_at;
ALTER TABLE iap.refund_requests
    ADD COLUMN request_id text,
    ADD COLUMN store text NOT NULL DEFAULT 'apple' CHECK (store IN ('apple', 'google')),
    ADD COLUMN order_id text,
    ADD COLUMN reason text,
    ADD COLUMN received_at timestamptz,
    ADD COLUMN answer_by timestamptz,
    ADD COLUMN answered_by text CHECK (answered_by IN ('game', 'policy', 'operator')),
    ADD COLUMN preference text CHECK (preference IN ('decline', 'grant_full', 'grant_prorated', 'none')),
    ADD COLUMN consumed_milliunits int CHECK (consumed_milliunits BETWEEN 0 AND 100000),
    ADD COLUMN answered_at timestamptz;

-- What the rows already say: a request sent or refused for want of consent was answered by the fixed policy; one
-- still pending is the policy's to send (its game had no way to answer). Apple's deadline is 12 hours.
UPDATE iap.refund_requests r
SET request_id = n.notification_id, received_at = r.created_at, answer_by = r.signed_at + interval '12 hours',
    order_id = (SELECT d.order_id FROM iap.deliveries d WHERE d.store = 'apple' AND d.transaction_id = r.transaction_id),
    state = CASE r.state WHEN 'pending' THEN 'answering' WHEN 'sent' THEN 'answered'
                         WHEN 'not_consented' THEN 'answered' ELSE 'failed' END,
    answered_by = CASE WHEN r.state IN ('pending', 'sent', 'not_consented') THEN 'policy' END,
    answered_at = CASE r.state WHEN 'sent' THEN r.sent_at WHEN 'not_consented' THEN r.created_at END,
    last_error = CASE WHEN r.state = 'not_consented' THEN 'no consent' ELSE r.last_error END
FROM iap.store_notifications n WHERE n.id = r.notification_id;

ALTER TABLE iap.refund_requests
    ALTER COLUMN request_id SET NOT NULL,
    ALTER COLUMN received_at SET NOT NULL,
    ALTER COLUMN received_at SET DEFAULT now(),
    ALTER COLUMN answer_by SET NOT NULL,
    ALTER COLUMN state SET DEFAULT 'waiting',
    ADD CONSTRAINT refund_requests_state_check
        CHECK (state IN ('waiting', 'answering', 'answered', 'expired', 'failed')),
    ADD CONSTRAINT refund_requests_answer_check
        CHECK (state IN ('waiting', 'expired', 'failed') OR (answered_by IS NOT NULL AND preference IS NOT NULL)
               OR last_error = 'no consent');
ALTER TABLE iap.refund_requests DROP COLUMN overdue_at;
-- The game names a request by its id alone (Apple's are UUIDs, Google's refund tokens): the id leads.
CREATE UNIQUE INDEX refund_requests_request ON iap.refund_requests (request_id, store);
-- What the daemons work off: answers to send, the few requests waiting for the game, and those still open at
-- their deadline. Each daemon statement matches one of these predicates as written: the daemons' sessions run
-- with enable_seqscan off, and a statement no index serves would be compiled with LLVM every time.
CREATE INDEX refund_requests_answering ON iap.refund_requests (run_at) WHERE state = 'answering';
CREATE INDEX refund_requests_waiting ON iap.refund_requests (answer_by) WHERE state = 'waiting';
CREATE INDEX refund_requests_open ON iap.refund_requests (answer_by) WHERE state IN ('waiting', 'answering');
CREATE INDEX refund_requests_user ON iap.refund_requests (user_id, received_at);

-- The old name, for one release: Apple's rows in the old columns and states.
CREATE VIEW iap.consumption_requests AS
SELECT notification_id, transaction_id, environment, user_id, signed_at AS requested_at,
       answer_by - interval '2 hours' AS overdue_at,
       CASE WHEN state IN ('waiting', 'answering') THEN 'pending'
            WHEN state = 'answered' AND last_error = 'no consent' THEN 'not_consented'
            WHEN state = 'answered' THEN 'sent' ELSE 'failed' END AS state,
       run_at, attempts, locked_by, locked_until, last_error, delivery_status, request_body, sent_at, created_at
FROM iap.refund_requests WHERE store = 'apple';

-- Consumption the game reports before any request (iap.report_consumption): the latest report per transaction.
-- Ledger ids of the two stores cannot collide, so the id alone is the key, as the game names it.
CREATE TABLE iap.consumption_reports (
    transaction_id      text PRIMARY KEY,
    consumed_milliunits int NOT NULL CHECK (consumed_milliunits BETWEEN 0 AND 100000),
    reported_at         timestamptz NOT NULL DEFAULT now()
);

-- Webhooks: refund.requested asks the game for its facts.
ALTER TABLE iap.webhook_events DROP CONSTRAINT webhook_events_type_check;
ALTER TABLE iap.webhook_events ADD CONSTRAINT webhook_events_type_check
    CHECK (type IN ('order.verified', 'delivery.revoked', 'delivery.reinstated', 'payment.unclaimed', 'order.failed',
                    'consent.rescinded', 'refund.requested'));

-- The refund limit (RECEIPTD_REFUND_ABUSE_LIMIT), which the daemons write as they write the trust policy.
ALTER TABLE iap.trust_policy ADD COLUMN refund_abuse_limit int NOT NULL DEFAULT 3 CHECK (refund_abuse_limit >= 0);

-- A player's refunds (iap.refunds_in_90_days): only revoked rows enter the index, so a settle's insert pays nothing.
CREATE INDEX deliveries_refunded ON iap.deliveries (user_id)
    WHERE revoked_at IS NOT NULL OR revoked_quantity > 0 OR revocation_percentage IS NOT NULL;
