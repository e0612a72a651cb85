-- receiptd's functions, views, roles and grants. They hold no data, so `receiptd migrate` creates or
-- replaces all of them on every run, after the numbered migrations in migrations/ and in the same
-- transaction as its bookkeeping. CREATE OR REPLACE VIEW can only append columns: a change to an
-- existing column needs a DROP VIEW first.

-- Ids reach operators' terminals and every log line: bounded, and free of control characters.
CREATE OR REPLACE FUNCTION iap.check_identifier(p_function text, p_name text, p_value text) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF p_value IS NULL OR p_value = '' THEN
        RAISE EXCEPTION '%: % must not be empty', p_function, p_name USING ERRCODE = '22023';
    END IF;
    IF char_length(p_value) > 255 THEN
        RAISE EXCEPTION '%: % is % characters long, over the limit of 255', p_function, p_name, char_length(p_value)
            USING ERRCODE = '22023';
    END IF;
    IF p_value ~ '[\u0001-\u001f\u007f-\u009f]' THEN
        RAISE EXCEPTION '%: % contains a control character', p_function, p_name USING ERRCODE = '22023';
    END IF;
END $$;

-- The order and job rules both enqueue functions share, after each has checked its own input: the order
-- (created, or checked against the call), cancel-and-replace of its active job, the new job and its wake-up.
-- An order may be fed by either function; the newest input wins.
CREATE OR REPLACE FUNCTION iap.enqueue_job(
    p_function text, p_kind text, p_order_id text, p_user_id text, p_product_id text, p_input text, p_quantity int,
    p_app_account_token uuid
) RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_order  iap.orders%ROWTYPE;
    v_active iap.jobs%ROWTYPE;
    v_sha    text;
    v_new_id bigint;
BEGIN
    -- Good ids in one expression (the common case costs no function calls); check_identifier says what is wrong.
    IF NOT (char_length(p_order_id) BETWEEN 1 AND 255 AND char_length(p_user_id) BETWEEN 1 AND 255
            AND char_length(p_product_id) BETWEEN 1 AND 255
            AND p_order_id || p_user_id || p_product_id !~ '[\u0001-\u001f\u007f-\u009f]') IS TRUE THEN
        PERFORM iap.check_identifier(p_function, 'order_id', p_order_id);
        PERFORM iap.check_identifier(p_function, 'user_id', p_user_id);
        PERFORM iap.check_identifier(p_function, 'product_id', p_product_id);
    END IF;
    IF p_quantity IS NULL OR p_quantity < 1 THEN
        RAISE EXCEPTION '%: quantity must be at least 1, got %', p_function, p_quantity USING ERRCODE = '22023';
    END IF;
    v_sha := encode(sha256(convert_to(p_input, 'UTF8')), 'hex');
    INSERT INTO iap.orders (order_id, user_id, product_id, quantity, app_account_token)
    VALUES (p_order_id, p_user_id, p_product_id, p_quantity, p_app_account_token)
    ON CONFLICT (order_id) DO NOTHING
    RETURNING order_id INTO v_order.order_id;
    IF FOUND THEN
        -- A new order (the most common call): our insert holds its row, and it has no job to replace.
        v_new_id := nextval(pg_get_serial_sequence('iap.jobs', 'id'));
        INSERT INTO iap.jobs (id, order_id, kind, receipt_data, receipt_sha256, submitted_by)
        VALUES (v_new_id, p_order_id, p_kind, p_input, v_sha, p_user_id);
        -- One empty payload: PostgreSQL folds a transaction's equal notifications into one, so a batch of
        -- enqueues wakes each daemon once. The notification is only a wake-up; daemons claim what is due.
        PERFORM pg_notify('iap_jobs', '');
        RETURN v_new_id;
    END IF;
    -- The order row lock serialises enqueues for one order.
    SELECT * INTO v_order FROM iap.orders WHERE order_id = p_order_id FOR UPDATE;
    -- Another account on the same device may send the receipt: the order is settled for its owner, and the
    -- job records who sent it (submitted_by).
    IF v_order.product_id <> p_product_id THEN
        RAISE EXCEPTION '%: order % is for product %, not %', p_function, p_order_id, v_order.product_id, p_product_id
            USING ERRCODE = '22023';
    END IF;
    IF p_app_account_token IS NOT NULL THEN
        IF v_order.app_account_token IS NULL THEN
            UPDATE iap.orders SET app_account_token = p_app_account_token WHERE order_id = p_order_id;
        ELSIF v_order.app_account_token <> p_app_account_token THEN
            RAISE EXCEPTION '%: order % is bound to app_account_token %, not %', p_function, p_order_id,
                v_order.app_account_token, p_app_account_token USING ERRCODE = '22023';
        END IF;
    END IF;
    IF v_order.outcome = 'full' THEN
        -- The job whose receipt last delivered to the order: the ledger names it, so retention never removes
        -- it and the answer stays the same however often the receipt comes again.
        RETURN coalesce(
            (SELECT job_id FROM iap.deliveries WHERE order_id = p_order_id AND job_id IS NOT NULL
             ORDER BY delivered_at DESC, job_id DESC LIMIT 1),
            (SELECT max(id) FROM iap.jobs WHERE order_id = p_order_id));
    END IF;

    SELECT * INTO v_active FROM iap.jobs
    WHERE order_id = p_order_id AND state IN ('pending', 'running') FOR UPDATE;
    IF FOUND AND v_active.state = 'running' AND v_active.receipt_sha256 = v_sha THEN
        RETURN v_active.id;
    END IF;

    v_new_id := nextval(pg_get_serial_sequence('iap.jobs', 'id'));
    IF v_active.id IS NOT NULL THEN
        UPDATE iap.jobs
        SET state = 'superseded', superseded_by = v_new_id, finished_at = now(), locked_by = NULL
        WHERE id = v_active.id;
        IF v_active.state = 'running' THEN
            -- The daemon running it aborts its Apple request on this notification.
            PERFORM pg_notify('iap_job_cancel', v_active.id::text);
        END IF;
    END IF;
    INSERT INTO iap.jobs (id, order_id, kind, receipt_data, receipt_sha256, submitted_by)
    VALUES (v_new_id, p_order_id, p_kind, p_input, v_sha, p_user_id);
    PERFORM pg_notify('iap_jobs', '');
    RETURN v_new_id;
END $$;

CREATE OR REPLACE FUNCTION iap.enqueue_receipt(
    p_order_id text, p_user_id text, p_product_id text, p_receipt_data text, p_quantity int DEFAULT 1
) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v_decoded_length int;
BEGIN
    IF p_receipt_data IS NULL OR btrim(p_receipt_data) = '' THEN
        RAISE EXCEPTION 'enqueue_receipt: receipt_data is empty' USING ERRCODE = '22023';
    END IF;
    IF octet_length(p_receipt_data) > 1048576 THEN
        RAISE EXCEPTION 'enqueue_receipt: receipt_data is % bytes, over the 1 MiB limit', octet_length(p_receipt_data)
            USING ERRCODE = '22023';
    END IF;
    BEGIN
        -- decode() skips white space, so a receipt of only newlines or tabs decodes to nothing.
        v_decoded_length := length(decode(p_receipt_data, 'base64'));
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'enqueue_receipt: receipt_data is not valid base64' USING ERRCODE = '22023';
    END;
    IF v_decoded_length = 0 THEN
        RAISE EXCEPTION 'enqueue_receipt: receipt_data decodes to nothing' USING ERRCODE = '22023';
    END IF;
    RETURN iap.enqueue_job('enqueue_receipt', 'receipt', p_order_id, p_user_id, p_product_id, p_receipt_data, p_quantity, NULL);
END $$;

-- StoreKit 2: what the client sent is a signed transaction (a compact JWS, verified offline) or a transaction
-- id (looked up with the App Store Server API).
CREATE OR REPLACE FUNCTION iap.enqueue_transaction(
    order_id text, user_id text, product_id text, transaction text, quantity int DEFAULT 1,
    app_account_token uuid DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    IF $4 IS NULL OR $4 = '' THEN
        RAISE EXCEPTION 'enqueue_transaction: transaction is empty' USING ERRCODE = '22023';
    END IF;
    IF octet_length($4) > 65536 THEN
        RAISE EXCEPTION 'enqueue_transaction: transaction is % bytes, over the 64 KiB limit', octet_length($4)
            USING ERRCODE = '22023';
    END IF;
    IF $4 !~ '^[0-9]{1,32}$' AND $4 !~ '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$' THEN
        RAISE EXCEPTION 'enqueue_transaction: transaction is neither a decimal transaction id nor a compact JWS'
            USING ERRCODE = '22023';
    END IF;
    RETURN iap.enqueue_job('enqueue_transaction', 'transaction', $1, $2, $3, $4, $5, $6);
END $$;

-- The game server's checkout, before the client pays: the order and its checkout time, which bounds the
-- purchases that may pay it. The same call again returns the same time; NULL for an order first seen with
-- its receipt (it has no checkout, and no such bound).
CREATE OR REPLACE FUNCTION iap.create_order(
    order_id text, user_id text, product_id text, quantity int DEFAULT 1
) RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- The parameters carry the contract's names; the body reads them through p_ aliases, and a bare name is
-- the column.
#variable_conflict use_column
DECLARE
    p_order_id ALIAS FOR $1;
    p_user_id ALIAS FOR $2;
    p_product_id ALIAS FOR $3;
    p_quantity ALIAS FOR $4;
    v_order iap.orders%ROWTYPE;
BEGIN
    PERFORM iap.check_identifier('create_order', 'order_id', p_order_id);
    PERFORM iap.check_identifier('create_order', 'user_id', p_user_id);
    PERFORM iap.check_identifier('create_order', 'product_id', p_product_id);
    IF p_quantity IS NULL OR p_quantity < 1 THEN
        RAISE EXCEPTION 'create_order: quantity must be at least 1, got %', p_quantity USING ERRCODE = '22023';
    END IF;
    INSERT INTO iap.orders (order_id, user_id, product_id, quantity, checkout_at)
    VALUES (p_order_id, p_user_id, p_product_id, p_quantity, now())
    ON CONFLICT (order_id) DO NOTHING
    RETURNING * INTO v_order;
    IF FOUND THEN
        RETURN v_order.checkout_at;
    END IF;
    SELECT * INTO v_order FROM iap.orders WHERE order_id = p_order_id;
    IF v_order.user_id <> p_user_id OR v_order.product_id <> p_product_id OR v_order.quantity <> p_quantity THEN
        RAISE EXCEPTION 'create_order: order % exists for user %, product %, quantity %', p_order_id, v_order.user_id,
            v_order.product_id, v_order.quantity USING ERRCODE = '22023';
    END IF;
    RETURN v_order.checkout_at;
END $$;

-- What the game server asks for at the player's login: delivered goods it has not confirmed granting, oldest first.
CREATE OR REPLACE FUNCTION iap.owed_deliveries(user_id text)
RETURNS TABLE (transaction_id text, order_id text, product_id text, quantity int, purchase_date timestamptz,
               delivered_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    SELECT d.transaction_id, d.order_id, d.product_id, d.quantity, d.purchase_date, d.delivered_at
    FROM iap.deliveries d
    WHERE d.user_id = $1 AND d.granted_at IS NULL   -- $1: a bare user_id would name the column
    ORDER BY d.delivered_at, d.transaction_id
$$;

-- The game confirms it granted the order's delivered goods: returns how many ledger rows it newly marked
-- (0 the second time). With nothing delivered left ungranted, the order is finished.
CREATE OR REPLACE FUNCTION iap.mark_granted(order_id text) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- The parameters carry the contract's names; the body reads them through p_ aliases, and a bare name is
-- the column.
#variable_conflict use_column
DECLARE
    p_order_id ALIAS FOR $1;
    v_order  iap.orders%ROWTYPE;
    v_marked int;
BEGIN
    -- The order row lock orders this after any settle delivering to the order.
    SELECT * INTO v_order FROM iap.orders WHERE order_id = p_order_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'mark_granted: no order %', p_order_id USING ERRCODE = 'P0002';
    END IF;
    UPDATE iap.deliveries SET granted_at = now() WHERE order_id = p_order_id AND granted_at IS NULL;
    GET DIAGNOSTICS v_marked = ROW_COUNT;
    IF v_order.delivered_quantity > 0 AND v_order.status <> 'finished' THEN
        UPDATE iap.orders SET status = 'finished' WHERE order_id = p_order_id;
    END IF;
    RETURN v_marked;
END $$;

-- The game closes an order nobody paid: its active job, if any, is cancelled and the order is closed. A
-- payment that still arrives is delivered (the money was taken) and the order becomes verified.
CREATE OR REPLACE FUNCTION iap.close_order(order_id text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- The parameters carry the contract's names; the body reads them through p_ aliases, and a bare name is
-- the column.
#variable_conflict use_column
DECLARE
    p_order_id ALIAS FOR $1;
    v_order iap.orders%ROWTYPE;
BEGIN
    SELECT * INTO v_order FROM iap.orders WHERE order_id = p_order_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'close_order: no order %', p_order_id USING ERRCODE = 'P0002';
    END IF;
    IF v_order.delivered_quantity > 0 THEN
        RAISE EXCEPTION 'close_order: order % has deliveries; grant them instead', p_order_id USING ERRCODE = '55000';
    END IF;
    PERFORM iap.cancel_order(p_order_id);
    UPDATE iap.orders SET status = 'closed' WHERE order_id = p_order_id;
END $$;

-- An operator gives an unclaimed payment to the order it was meant for, through the same exactly-once ledger.
CREATE OR REPLACE FUNCTION iap.assign_payment(transaction_id text, order_id text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- The parameters carry the contract's names; the body reads them through p_ aliases, and a bare name is
-- the column.
#variable_conflict use_column
DECLARE
    p_transaction_id ALIAS FOR $1;
    p_order_id ALIAS FOR $2;
    v_payment   iap.unclaimed_payments%ROWTYPE;
    v_order     iap.orders%ROWTYPE;
    v_delivered int;
    v_active    iap.jobs%ROWTYPE;
BEGIN
    SELECT * INTO v_payment FROM iap.unclaimed_payments WHERE transaction_id = p_transaction_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'assign_payment: no unclaimed payment %', p_transaction_id USING ERRCODE = 'P0002';
    END IF;
    SELECT * INTO v_order FROM iap.orders WHERE order_id = p_order_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'assign_payment: no order %', p_order_id USING ERRCODE = 'P0002';
    END IF;
    IF v_payment.assigned_at IS NOT NULL OR EXISTS (SELECT 1 FROM iap.deliveries WHERE transaction_id = p_transaction_id) THEN
        RAISE EXCEPTION 'assign_payment: payment % is already delivered', p_transaction_id USING ERRCODE = '55000';
    END IF;
    IF v_order.product_id <> v_payment.product_id THEN
        RAISE EXCEPTION 'assign_payment: payment % is for product %, order % for %', p_transaction_id, v_payment.product_id,
            p_order_id, v_order.product_id USING ERRCODE = '55000';
    END IF;
    IF v_order.outcome = 'full' OR v_order.delivered_quantity >= v_order.quantity THEN
        RAISE EXCEPTION 'assign_payment: order % is already full', p_order_id USING ERRCODE = '55000';
    END IF;
    INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, purchase_date, environment, job_id)
    VALUES (p_transaction_id, p_order_id, v_order.user_id, v_order.product_id, v_payment.quantity, v_payment.purchase_date,
            v_payment.environment, v_payment.job_id);
    INSERT INTO iap.transaction_owners (original_transaction_id, user_id, order_id)
    VALUES (p_transaction_id, v_order.user_id, p_order_id)
    ON CONFLICT DO NOTHING;
    v_delivered := v_order.delivered_quantity + v_payment.quantity;
    UPDATE iap.orders
    SET delivered_quantity = v_delivered, status = 'verified', outcome_at = now(),
        outcome = CASE WHEN v_delivered >= v_order.quantity THEN 'full' ELSE 'partial' END::iap.outcome
    WHERE order_id = p_order_id;
    UPDATE iap.unclaimed_payments SET assigned_order_id = p_order_id, assigned_at = now()
    WHERE transaction_id = p_transaction_id;
    IF v_delivered >= v_order.quantity THEN
        SELECT * INTO v_active FROM iap.jobs WHERE order_id = p_order_id AND state IN ('pending', 'running') FOR UPDATE;
        IF FOUND THEN
            UPDATE iap.jobs SET state = 'superseded', superseded_by = v_payment.job_id, finished_at = now(), locked_by = NULL
            WHERE id = v_active.id;
            IF v_active.state = 'running' THEN
                PERFORM pg_notify('iap_job_cancel', v_active.id::text);
            END IF;
        END IF;
    END IF;
    PERFORM pg_notify('iap_verified', json_build_object('order_id', p_order_id, 'user_id', v_order.user_id)::text);
END $$;

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
-- a running job silent that long is 'lease_expired' and a daemon should reclaim it soon.
-- A running job whose daemon still heartbeats but whose attempt has run a minute past the longest
-- an attempt may take under that daemon's settings (iap.daemons.attempt_limit_seconds) is 'overrun':
-- the daemon is alive but no longer finishing it.
-- A pending job due more than 5 minutes ago is 'overdue': no daemon is claiming.
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
            THEN 'lease_expired'
        WHEN j.state = 'running'
             AND j.started_at < now() - make_interval(secs => coalesce(d.attempt_limit_seconds, 90) + 60) THEN 'overrun'
    END AS reason
) k
WHERE k.reason IS NOT NULL
ORDER BY stuck_seconds DESC, j.id;

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

-- Operator functions. They raise SQLSTATE P0002 (no_data_found) for an unknown order and 55000
-- (object_not_in_prerequisite_state) when the order is in no state to do it; `receiptd` maps
-- those to exit codes 3 and 4. SECURITY DEFINER so that receiptd_operator needs no table rights;
-- the fixed search_path keeps callers from substituting objects.

-- A fresh pending job, due now, with the latest job's receipt, for an order that is not full
-- and has no active job. Locks the order row first, as enqueue_receipt does.
CREATE OR REPLACE FUNCTION iap.retry_order(p_order_id text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_order  iap.orders%ROWTYPE;
    v_latest iap.jobs%ROWTYPE;
    v_new_id bigint;
BEGIN
    SELECT * INTO v_order FROM iap.orders WHERE order_id = p_order_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'retry_order: no order %', p_order_id USING ERRCODE = 'P0002';
    END IF;
    IF v_order.outcome = 'full' THEN
        RAISE EXCEPTION 'retry_order: order % is already full', p_order_id USING ERRCODE = '55000';
    END IF;
    SELECT * INTO v_latest FROM iap.jobs WHERE order_id = p_order_id AND state IN ('pending', 'running');
    IF FOUND THEN
        RAISE EXCEPTION 'retry_order: order % already has % job %', p_order_id, v_latest.state, v_latest.id
            USING ERRCODE = '55000';
    END IF;
    SELECT * INTO v_latest FROM iap.jobs WHERE order_id = p_order_id ORDER BY id DESC LIMIT 1;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'retry_order: order % has no job, so no receipt to retry', p_order_id USING ERRCODE = 'P0002';
    END IF;
    INSERT INTO iap.jobs (order_id, receipt_data, receipt_sha256)
    VALUES (p_order_id, v_latest.receipt_data, v_latest.receipt_sha256)
    RETURNING id INTO v_new_id;
    PERFORM pg_notify('iap_jobs', v_new_id::text);
    RETURN v_new_id;
END $$;

-- Cancels the order's active job and returns how many jobs it cancelled (0 or 1). A running job's
-- daemon aborts on the notification, and records nothing because the job is no longer running
-- under it. The order's outcome is left as it was.
CREATE OR REPLACE FUNCTION iap.cancel_order(p_order_id text) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_active iap.jobs%ROWTYPE;
BEGIN
    PERFORM 1 FROM iap.orders WHERE order_id = p_order_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'cancel_order: no order %', p_order_id USING ERRCODE = 'P0002';
    END IF;
    SELECT * INTO v_active FROM iap.jobs
    WHERE order_id = p_order_id AND state IN ('pending', 'running') FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    UPDATE iap.jobs
    SET state = 'cancelled', finished_at = now(), locked_by = NULL, heartbeat_at = NULL,
        last_error = 'cancelled by ' || session_user
    WHERE id = v_active.id;
    IF v_active.state = 'running' THEN
        PERFORM pg_notify('iap_job_cancel', v_active.id::text);
    END IF;
    RETURN 1;
END $$;

-- Deletes up to p_batch finished jobs that finished more than p_older_than ago, with their
-- attempts. Orders and deliveries are never deleted, and neither is a job
-- the ledger names. A job another job's superseded_by names waits until that job is gone: each
-- round deletes only unreferenced jobs, so a supersede chain goes one link per round.
CREATE OR REPLACE FUNCTION iap.purge_finished(p_older_than interval, p_batch int) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_total int := 0;
    v_round int;
BEGIN
    IF p_older_than IS NULL OR p_older_than < interval '0' THEN
        RAISE EXCEPTION 'purge_finished: the age must be a non-negative interval' USING ERRCODE = '22023';
    END IF;
    IF p_batch IS NULL OR p_batch < 1 THEN
        RAISE EXCEPTION 'purge_finished: the batch must be at least 1' USING ERRCODE = '22023';
    END IF;
    LOOP
        WITH doomed AS (
            SELECT j.id FROM iap.jobs j
            WHERE j.state IN ('succeeded', 'failed', 'superseded', 'cancelled')
              AND j.finished_at < now() - p_older_than
              AND NOT EXISTS (SELECT 1 FROM iap.deliveries d WHERE d.job_id = j.id)
              AND NOT EXISTS (SELECT 1 FROM iap.jobs r WHERE r.superseded_by = j.id)
            ORDER BY j.finished_at, j.id
            LIMIT p_batch - v_total
            FOR UPDATE SKIP LOCKED
        )
        , gone AS (
            DELETE FROM iap.jobs j USING doomed WHERE j.id = doomed.id RETURNING j.id
        ), attempts AS (
            DELETE FROM iap.attempts a WHERE a.job_id = ANY (ARRAY(SELECT id FROM gone))
        )
        SELECT count(*) INTO v_round FROM gone;
        v_total := v_total + v_round;
        EXIT WHEN v_round = 0 OR v_total >= p_batch;
    END LOOP;
    RETURN v_total;
END $$;

-- The game server's role needs no table rights: enqueue_receipt runs as its owner.
-- (CREATE OR REPLACE above resets these attributes, so they are set again on every migrate.)
ALTER FUNCTION iap.enqueue_receipt(text, text, text, text, int)
    SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp;

-- Roles are cluster-wide, and migrations of other databases in the same cluster may create them
-- at the same moment (the advisory lock is per database): a concurrent creation is fine. A
-- migrating user without CREATEROLE gets a warning, and the grants below skip missing roles.
DO $$
DECLARE
    v_role text;
BEGIN
    FOREACH v_role IN ARRAY ARRAY['receiptd_worker', 'receiptd_app', 'receiptd_operator'] LOOP
        CONTINUE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = v_role);
        BEGIN
            EXECUTE format('CREATE ROLE %I NOLOGIN', v_role);
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN NULL;
            WHEN insufficient_privilege THEN
                RAISE WARNING 'receiptd: cannot create role % (needs CREATEROLE); its grants are skipped', v_role;
        END;
    END LOOP;
END $$;

-- The functions that run as their owner are for the roles below only.
REVOKE ALL ON FUNCTION iap.enqueue_receipt(text, text, text, text, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION iap.enqueue_transaction(text, text, text, text, int, uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION iap.enqueue_job(text, text, text, text, text, text, int, uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION iap.retry_order(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION iap.cancel_order(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION iap.purge_finished(interval, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION iap.create_order(text, text, text, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION iap.owed_deliveries(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION iap.mark_granted(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION iap.close_order(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION iap.assign_payment(text, text) FROM PUBLIC;

-- Grants are revoked and given again on every migrate, so this block is the whole truth about
-- what each role may do.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'receiptd_worker') THEN
        REVOKE ALL ON SCHEMA iap FROM receiptd_worker;
        REVOKE ALL ON ALL TABLES IN SCHEMA iap FROM receiptd_worker;
        REVOKE ALL ON ALL SEQUENCES IN SCHEMA iap FROM receiptd_worker;
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA iap FROM receiptd_worker;
        -- Exactly the daemon's statements: claim, heartbeat, record, deliver, log attempts.
        GRANT USAGE ON SCHEMA iap TO receiptd_worker;
        GRANT SELECT, UPDATE ON iap.jobs, iap.orders TO receiptd_worker;
        GRANT SELECT, INSERT ON iap.deliveries, iap.attempts, iap.transaction_owners, iap.foreign_transactions
            TO receiptd_worker;
        GRANT SELECT, INSERT, UPDATE ON iap.unclaimed_payments TO receiptd_worker;
        GRANT SELECT, INSERT, UPDATE, DELETE ON iap.daemons TO receiptd_worker;
        GRANT SELECT, UPDATE ON iap.api_pacing TO receiptd_worker;
        GRANT SELECT ON iap.schema_migrations TO receiptd_worker;   -- the daemon checks the version at start
        GRANT EXECUTE ON FUNCTION iap.purge_finished(interval, int) TO receiptd_worker;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'receiptd_app') THEN
        REVOKE ALL ON SCHEMA iap FROM receiptd_app;
        REVOKE ALL ON ALL TABLES IN SCHEMA iap FROM receiptd_app;
        REVOKE ALL ON ALL SEQUENCES IN SCHEMA iap FROM receiptd_app;
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA iap FROM receiptd_app;
        GRANT USAGE ON SCHEMA iap TO receiptd_app;
        GRANT EXECUTE ON FUNCTION iap.enqueue_receipt(text, text, text, text, int),
            iap.enqueue_transaction(text, text, text, text, int, uuid), iap.create_order(text, text, text, int),
            iap.owed_deliveries(text), iap.mark_granted(text), iap.close_order(text) TO receiptd_app;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'receiptd_operator') THEN
        REVOKE ALL ON SCHEMA iap FROM receiptd_operator;
        REVOKE ALL ON ALL TABLES IN SCHEMA iap FROM receiptd_operator;
        REVOKE ALL ON ALL SEQUENCES IN SCHEMA iap FROM receiptd_operator;
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA iap FROM receiptd_operator;
        GRANT USAGE ON SCHEMA iap TO receiptd_operator;
        GRANT SELECT ON iap.queue_summary, iap.recent_retries, iap.stuck_jobs, iap.recent_failures, iap.suspicious_receipts
            TO receiptd_operator;
        GRANT SELECT ON iap.orders, iap.jobs, iap.attempts, iap.deliveries, iap.daemons, iap.transaction_owners,
            iap.foreign_transactions, iap.schema_migrations, iap.unclaimed_payments, iap.api_pacing TO receiptd_operator;
        GRANT EXECUTE ON FUNCTION iap.retry_order(text), iap.cancel_order(text), iap.assign_payment(text, text)
            TO receiptd_operator;
    END IF;
END $$;
