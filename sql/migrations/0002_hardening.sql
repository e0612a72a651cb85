-- Migration 2: what the hardening of the daemon needs (issue "late receipts settle, no job stuck running").

-- A status of 3000000000 could not be written into an int and blocked the settle. The view reading the
-- column goes first; routines.sql creates it again.
DROP VIEW IF EXISTS iap.recent_failures;
ALTER TABLE iap.attempts ALTER COLUMN apple_status TYPE bigint;

-- The longest one of its attempts may rightly take (both Apple calls at their timeout, then recording):
-- iap.stuck_jobs shows a job running longer than that, even while its daemon heartbeats.
ALTER TABLE iap.daemons ADD COLUMN attempt_limit_seconds double precision;

-- Who first received each purchase. A receipt of another user that carries an original_transaction_id seen
-- here pays nothing for it: a receipt shared between accounts, or stolen, delivers once, to its first owner.
CREATE TABLE iap.transaction_owners (
    original_transaction_id text PRIMARY KEY,
    user_id                 text NOT NULL,
    order_id                text NOT NULL,
    first_delivered_at      timestamptz NOT NULL DEFAULT now()
);

-- One row per job whose receipt carried purchases first delivered to another user.
CREATE TABLE iap.foreign_transactions (
    job_id                  bigint NOT NULL,   -- no FK: the flag outlives retention of the job
    order_id                text NOT NULL,
    user_id                 text NOT NULL,     -- who sent the receipt
    original_transaction_id text NOT NULL,
    owner_user_id           text NOT NULL,     -- who received it first
    seen_at                 timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, original_transaction_id)
);
CREATE INDEX foreign_transactions_seen ON iap.foreign_transactions (seen_at);
