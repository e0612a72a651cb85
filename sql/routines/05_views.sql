-- The views operators read (`receiptd status`, `receiptd jobs`, …), over the tables only.

-- One row per job state, all six always present. due_now and oldest_due_seconds concern pending
-- jobs whose run_at has come; oldest_heartbeat_seconds concerns running jobs.
CREATE OR REPLACE VIEW iap.queue_summary AS
SELECT s.state,
       count(j.id) AS jobs,
       count(j.id) FILTER (WHERE j.state = 'pending' AND j.run_at <= now()) AS due_now,
       round(extract(epoch FROM now() - min(j.run_at) FILTER (WHERE j.state = 'pending' AND j.run_at <= now())))::bigint
           AS oldest_due_seconds,
       round(extract(epoch FROM now() - min(j.heartbeat_at) FILTER (WHERE j.state = 'running')))::bigint
           AS oldest_heartbeat_seconds
FROM (VALUES (1, 'pending'), (2, 'running'), (3, 'succeeded'), (4, 'failed'), (5, 'superseded'), (6, 'cancelled'))
     AS s (position, state)
LEFT JOIN iap.jobs j ON j.state = s.state
GROUP BY s.position, s.state
ORDER BY s.position;

-- Transient failures of the last hour, one row per error_class (transport, http, garbled, …).
CREATE OR REPLACE VIEW iap.recent_retries AS
SELECT coalesce(a.error_class, 'unclassified') AS error_class,
       count(*) AS retries,
       count(DISTINCT a.job_id) AS jobs,
       max(a.finished_at) AS last_seen
FROM iap.attempts a
WHERE a.result = 'retry' AND a.finished_at > now() - interval '1 hour'
GROUP BY 1
ORDER BY retries DESC, error_class;

-- Jobs that need a look. 60 s matches the default RECEIPTD_LEASE (a view takes no parameters):
-- a running job silent that long whose daemon is silent too (or gone) is 'lease_expired' and a daemon
-- should reclaim it soon. A living daemon's job with an old heartbeat is one another transaction (a game
-- server's left open) holds locked, which 'overrun' shows if it lasts, or one that daemon gave up and
-- takes back itself at its next lease pass.
-- A running job whose daemon still heartbeats but whose attempt has run a minute past the longest
-- an attempt may take under that daemon's settings (iap.daemons.attempt_limit_seconds) is 'overrun':
-- the daemon is alive but no longer finishing it.
-- A pending job due more than 5 minutes ago is 'overdue': no daemon is claiming.
-- Besides jobs, other work that is stuck: acknowledgements, consumption answers, the voided poll, a blocked API,
-- webhook events and the webhook endpoint (`webhook_failing`, job_id NULL), and provisional grants nothing will end
-- (`provisional_unconfirmed`).
CREATE OR REPLACE VIEW iap.stuck_jobs AS
SELECT j.id AS job_id, j.order_id, j.state, k.reason,
       round(extract(epoch FROM now() - CASE k.reason WHEN 'lease_expired' THEN coalesce(j.heartbeat_at, j.started_at, j.created_at)
                                                     WHEN 'overrun' THEN j.started_at
                                                     ELSE j.run_at END))::bigint AS stuck_seconds,
       j.attempts, j.locked_by, j.heartbeat_at, j.run_at, j.last_error
FROM iap.jobs j
LEFT JOIN iap.daemons d ON j.state = 'running' AND d.daemon = j.locked_by
CROSS JOIN LATERAL (
    SELECT CASE
        WHEN j.state = 'pending' AND j.run_at < now() - interval '5 minutes' THEN 'overdue'
        WHEN j.state = 'running' AND coalesce(j.heartbeat_at, j.started_at, j.created_at) < now() - interval '60 seconds'
             AND (d.heartbeat_at IS NULL OR d.heartbeat_at < now() - interval '60 seconds')
            THEN 'lease_expired'
        WHEN j.state = 'running'
             AND j.started_at < now() - make_interval(secs => coalesce(d.attempt_limit_seconds, 90) + 60) THEN 'overrun'
    END AS reason
) k
WHERE k.reason IS NOT NULL
UNION ALL
-- A delivered Google purchase whose acknowledgement (or consumption) is still owed: Google refunds it after
-- three days.
SELECT d.job_id, f.order_id, coalesce(j.state, 'succeeded'), 'acknowledgement_owed',
       round(extract(epoch FROM now() - f.created_at))::bigint, f.attempts, f.locked_by, NULL, f.run_at, f.last_error
FROM iap.google_finalizations f
JOIN iap.deliveries d ON d.store = 'google' AND d.transaction_id = f.transaction_id
LEFT JOIN iap.jobs j ON j.id = d.job_id
WHERE f.done_at IS NULL AND f.overdue_at < now()
UNION ALL
-- A store's refund request not answered an hour before its deadline (answer_by): the store decides without it.
-- Not a job: no job id or job state; iap.refund_requests says where it is.
SELECT NULL, coalesce(r.order_id, d.order_id), NULL, 'refund_answer_late',
       round(extract(epoch FROM now() - r.received_at))::bigint, r.attempts, r.locked_by, NULL, r.run_at, r.last_error
FROM iap.refund_requests r
LEFT JOIN iap.deliveries d ON d.store = r.store AND d.transaction_id = r.transaction_id
WHERE r.state IN ('waiting', 'answering') AND r.answer_by < now() + interval '1 hour'
UNION ALL
-- The voided-purchases poll has not succeeded for a day while pollers keep trying (failing, or finding the
-- advisory lock held): refunds go unrecorded. Google lists 30 days back, so there is time to fix it.
SELECT NULL, NULL, NULL, 'voided_poll_failing', round(extract(epoch FROM now() - coalesce(c.succeeded_at, c.created_at)))::bigint,
       0, NULL, NULL, c.polled_at,
       CASE WHEN c.lock_missed_at > coalesce(c.failed_at, '-infinity') THEN 'the advisory lock of the voided poll is held by another session'
            ELSE c.last_error END
FROM iap.google_voided_cursor c
WHERE coalesce(c.succeeded_at, c.created_at) < now() - interval '1 day'
  AND greatest(c.failed_at, c.lock_missed_at) > coalesce(c.succeeded_at, '-infinity')
UNION ALL
-- An API endpoint (an App Store Server API one, paced apart: apple_transaction_info, apple_consumption, ...) that
-- asked (Retry-After) not to be called for over a minute more: every job needing it waits, the other endpoints' do
-- not. stuck_seconds is how long the block still lasts; receiptd caps it at an hour.
SELECT NULL, NULL, NULL, 'api_blocked', round(extract(epoch FROM p.blocked_until - now()))::bigint, 0, NULL, NULL, p.blocked_until,
       p.api || ' asked not to be called before ' || to_char(p.blocked_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
FROM iap.api_pacing p
WHERE p.blocked_until > now() + interval '1 minute'
UNION ALL
-- A webhook event the game server has not taken: given up after every retry (`failed`: `receiptd webhooks replay`
-- sends it again), or still pending an hour after it was written (the endpoint failing, or disabled). last_error
-- names the event, whose id replay takes, before the last answer. Read through the partial index of undelivered
-- events: delivered ones, most of the table, are never scanned.
SELECT NULL, w.order_id, w.state, 'webhook_failing', round(extract(epoch FROM now() - w.created_at))::bigint,
       w.attempts, w.locked_by, NULL, w.next_attempt_at,
       w.type || ' ' || w.id || ': ' || coalesce(w.last_error, 'HTTP ' || w.last_status, 'not sent yet')
FROM iap.webhook_events w
WHERE w.state <> 'delivered' AND (w.state = 'failed' OR w.created_at < now() - interval '1 hour')
UNION ALL
-- A provisional grant still unconfirmed while no job of its order is active: nothing will confirm or refute it,
-- and it stays owed to the game and counted against RECEIPTD_PROVISIONAL_LIMIT (a job cancelled by a build before
-- issue #32's). Shown with the order's latest job; `receiptd retry` verifies the order again. Read through the
-- partial index of unconfirmed grants.
SELECT j.id, g.order_id, j.state, 'provisional_unconfirmed', round(extract(epoch FROM now() - g.created_at))::bigint,
       coalesce(j.attempts, 0), NULL, NULL, NULL,
       'provisional grant of ' || g.quantity || ' ' || g.product_id || ' to ' || g.user_id
           || ' unconfirmed, and no job verifies the order'
FROM iap.provisional_grants g
LEFT JOIN LATERAL (
    SELECT j.id, j.state, j.attempts FROM iap.jobs j WHERE j.order_id = g.order_id ORDER BY j.id DESC LIMIT 1
) j ON true
WHERE g.state = 'unconfirmed'
  AND NOT EXISTS (SELECT 1 FROM iap.jobs a WHERE a.order_id = g.order_id AND a.state IN ('pending', 'running'))
UNION ALL
-- A subscription whose re-read the store refuses for good (Apple's 404 4040010, Google's 404 or 410): it is read
-- again every RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL (run_at), and a renewal whose news was lost waits for it.
-- order_id is its checkout, last_error names it; read through migration 29's partial index.
SELECT NULL, s.order_id, NULL, 'subscription_read_failing', round(extract(epoch FROM now() - s.read_failing_since))::bigint,
       s.read_attempts, NULL, NULL, s.read_due_at,
       s.subscription_id || ': ' || coalesce(s.read_error, 'the store refused to read it')
FROM iap.subscriptions s
WHERE s.read_failing_since IS NOT NULL
UNION ALL
-- The endpoint answered 410 Gone: nothing is sent, and every event waits, until an operator enables it again.
SELECT NULL, NULL, NULL, 'webhook_failing', round(extract(epoch FROM now() - e.disabled_at))::bigint, 0, NULL, NULL,
       NULL,
       'the webhook endpoint answered 410 Gone to ' || coalesce(e.disabled_event, 'an event')
           || ' and is disabled: nothing is sent until an operator runs `receiptd webhooks enable` ('
           || (SELECT count(*) FROM iap.webhook_events w WHERE w.state = 'pending') || ' events wait)'
FROM iap.webhook_endpoint e
WHERE e.disabled_at IS NOT NULL
ORDER BY stuck_seconds DESC, job_id;

-- Receipts that carried purchases first delivered to another user: shared or stolen receipts. Each row
-- is one such purchase in one job; it paid nothing.
CREATE OR REPLACE VIEW iap.suspicious_receipts AS
SELECT f.seen_at, f.job_id, f.order_id, f.user_id, f.original_transaction_id, f.owner_user_id, o.order_id AS owner_order_id
FROM iap.foreign_transactions f
LEFT JOIN iap.transaction_owners o USING (original_transaction_id)
ORDER BY f.seen_at DESC, f.job_id DESC, f.original_transaction_id;

-- Failed jobs finished in the last 24 h, and invalid/failed orders settled then (shown with
-- their latest job), with the latest attempt's answer.
CREATE OR REPLACE VIEW iap.recent_failures AS
WITH failing AS (
    SELECT j.id AS job_id FROM iap.jobs j
    WHERE j.state = 'failed' AND j.finished_at > now() - interval '24 hours'
    UNION
    SELECT (SELECT max(j.id) FROM iap.jobs j WHERE j.order_id = o.order_id)
    FROM iap.orders o
    WHERE o.outcome IN ('invalid', 'failed') AND o.outcome_at > now() - interval '24 hours'
)
SELECT o.order_id, o.user_id, o.product_id, o.outcome::text AS outcome, o.outcome_at,
       j.id AS job_id, j.state AS job_state, j.attempts, j.last_error, j.finished_at,
       a.apple_status, a.http_status, a.error_class, a.environment
FROM failing f
JOIN iap.jobs j ON j.id = f.job_id
JOIN iap.orders o ON o.order_id = j.order_id
LEFT JOIN LATERAL (
    SELECT apple_status, http_status, error_class, environment FROM iap.attempts
    WHERE job_id = j.id ORDER BY attempt DESC, id DESC LIMIT 1
) a ON true
ORDER BY coalesce(j.finished_at, o.outcome_at) DESC, j.id DESC;
