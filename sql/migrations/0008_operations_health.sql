-- Migration 8: what an operator needs to see a background part that stopped working. The voided-purchases
-- poll records its last success, its last failure and whether it could take its advisory lock, so one that
-- has not succeeded for a day shows in iap.stuck_jobs and `receiptd status`; and a Retry-After that was
-- stored unbounded before this version is brought back to the one-hour cap.

-- polled_at is now the last attempt, successful or not; succeeded_at the last successful poll.
ALTER TABLE iap.google_voided_cursor ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE iap.google_voided_cursor ADD COLUMN succeeded_at timestamptz;
ALTER TABLE iap.google_voided_cursor ADD COLUMN failed_at timestamptz;
ALTER TABLE iap.google_voided_cursor ADD COLUMN last_error text;
-- When a poller last took the advisory lock, when one last found it held by someone else, and the poller's
-- interval (GOOGLE_PLAY_VOIDED_INTERVAL): a lock missed for over three intervals is shown.
ALTER TABLE iap.google_voided_cursor ADD COLUMN lock_taken_at timestamptz;
ALTER TABLE iap.google_voided_cursor ADD COLUMN lock_missed_at timestamptz;
ALTER TABLE iap.google_voided_cursor ADD COLUMN interval_seconds float8;
UPDATE iap.google_voided_cursor SET succeeded_at = polled_at, lock_taken_at = polled_at;

-- Before this version a Retry-After (Apple's is a time in milliseconds) was stored as sent, 900 years ahead
-- included; such a block, and the jobs it postponed, end within the hour now. No delay receiptd sets reaches
-- two days (RECEIPTD_BACKOFF_MAX is at most one), so a pending job due later than that was parked by it.
UPDATE iap.api_pacing SET blocked_until = now() + interval '1 hour' WHERE blocked_until > now() + interval '1 hour';
UPDATE iap.api_pacing SET next_slot = now() WHERE next_slot > now() + interval '1 hour';
UPDATE iap.jobs SET run_at = now() + interval '1 hour' WHERE state = 'pending' AND run_at > now() + interval '2 days';
