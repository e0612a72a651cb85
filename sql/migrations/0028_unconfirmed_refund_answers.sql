-- Migration 28: a refund answer whose call got no answer (a timeout, a connection dropped after the request went out)
-- may have reached the store. It is marked possibly sent and sent once more; when that call brings no confirmation
-- either, the request ends `unconfirmed` instead of calling the store again (issue #47): at most one extra call per
-- request, whether a daemon was killed mid-call or the store answered too slowly.
ALTER TABLE iap.refund_requests ADD COLUMN possibly_sent_at timestamptz;
ALTER TABLE iap.refund_requests DROP CONSTRAINT refund_requests_state_check;
ALTER TABLE iap.refund_requests ADD CONSTRAINT refund_requests_state_check
    CHECK (state IN ('waiting', 'answering', 'answered', 'expired', 'failed', 'unconfirmed'));
