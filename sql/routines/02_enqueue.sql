-- The game server's enqueue functions: each checks its own input, then enqueue_job applies the rules they
-- share. They run as their owner (the game's role needs no table rights).

-- The order and job rules both enqueue functions share, after each has checked its own input: the order
-- (created, or checked against the call), cancel-and-replace of its active job, the new job and its wake-up.
-- An order may be fed by either function; the newest input wins.
CREATE OR REPLACE FUNCTION iap.enqueue_job(
    p_function text, p_kind text, p_order_id text, p_user_id text, p_product_id text, p_input text, p_quantity int,
    p_app_account_token uuid, p_account_id text
) RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_order  iap.orders%ROWTYPE;
    v_active iap.jobs%ROWTYPE;
    v_sha    text;
    v_new_id bigint;
BEGIN
    -- Good ids in one expression (the common case costs no function calls); check_identifier says what is wrong.
    IF NOT (char_length(enqueue_job.p_order_id) BETWEEN 1 AND 255
            AND char_length(enqueue_job.p_user_id) BETWEEN 1 AND 255
            AND char_length(enqueue_job.p_product_id) BETWEEN 1 AND 255
            AND enqueue_job.p_order_id || enqueue_job.p_user_id || enqueue_job.p_product_id
                !~ '[\u0001-\u001f\u007f-\u009f]') IS TRUE THEN
        PERFORM iap.check_identifier(enqueue_job.p_function, 'order_id', enqueue_job.p_order_id);
        PERFORM iap.check_identifier(enqueue_job.p_function, 'user_id', enqueue_job.p_user_id);
        PERFORM iap.check_identifier(enqueue_job.p_function, 'product_id', enqueue_job.p_product_id);
    END IF;
    IF enqueue_job.p_quantity IS NULL OR enqueue_job.p_quantity < 1 THEN
        RAISE EXCEPTION '%: quantity must be at least 1, got %', enqueue_job.p_function, enqueue_job.p_quantity
            USING ERRCODE = '22023';
    END IF;
    v_sha := encode(sha256(convert_to(enqueue_job.p_input, 'UTF8')), 'hex');
    INSERT INTO iap.orders (order_id, user_id, product_id, quantity, app_account_token, account_id)
    VALUES (enqueue_job.p_order_id, enqueue_job.p_user_id, enqueue_job.p_product_id, enqueue_job.p_quantity,
            enqueue_job.p_app_account_token, enqueue_job.p_account_id)
    ON CONFLICT (order_id) DO NOTHING
    RETURNING order_id INTO v_order.order_id;
    IF FOUND THEN
        -- A new order (the most common call): our insert holds its row, and it has no job to replace.
        v_new_id := nextval(pg_get_serial_sequence('iap.jobs', 'id'));
        INSERT INTO iap.jobs (id, order_id, kind, receipt_data, receipt_sha256, submitted_by)
        VALUES (v_new_id, enqueue_job.p_order_id, enqueue_job.p_kind, enqueue_job.p_input, v_sha,
                enqueue_job.p_user_id);
        -- One empty payload: PostgreSQL folds a transaction's equal notifications into one, so a batch of
        -- enqueues wakes each daemon once. The notification is only a wake-up; daemons claim what is due.
        PERFORM pg_notify('iap_jobs', '');
        RETURN v_new_id;
    END IF;
    -- The order row lock serialises enqueues for one order.
    SELECT * INTO v_order FROM iap.orders WHERE order_id = enqueue_job.p_order_id FOR UPDATE;
    -- Another account on the same device may send the receipt: the order is settled for its owner, and the
    -- job records who sent it (submitted_by).
    IF v_order.product_id <> enqueue_job.p_product_id THEN
        RAISE EXCEPTION '%: order % is for product %, not %', enqueue_job.p_function, enqueue_job.p_order_id,
            v_order.product_id, enqueue_job.p_product_id USING ERRCODE = '22023';
    END IF;
    IF enqueue_job.p_app_account_token IS NOT NULL THEN
        IF v_order.app_account_token IS NULL THEN
            UPDATE iap.orders SET app_account_token = enqueue_job.p_app_account_token
            WHERE order_id = enqueue_job.p_order_id;
        ELSIF v_order.app_account_token <> enqueue_job.p_app_account_token THEN
            RAISE EXCEPTION '%: order % is bound to app_account_token %, not %', enqueue_job.p_function,
                enqueue_job.p_order_id, v_order.app_account_token, enqueue_job.p_app_account_token
                USING ERRCODE = '22023';
        END IF;
    END IF;
    IF enqueue_job.p_account_id IS NOT NULL THEN
        IF v_order.account_id IS NULL THEN
            UPDATE iap.orders SET account_id = enqueue_job.p_account_id WHERE order_id = enqueue_job.p_order_id;
        ELSIF v_order.account_id <> enqueue_job.p_account_id THEN
            RAISE EXCEPTION '%: order % is bound to account_id %, not %', enqueue_job.p_function,
                enqueue_job.p_order_id, v_order.account_id, enqueue_job.p_account_id USING ERRCODE = '22023';
        END IF;
    END IF;
    IF v_order.outcome = 'full' THEN
        -- The input that filled the order, again: the id of the job that delivered it. The ledger names that job,
        -- so retention never removes it and the answer stays the same however often the input comes again. An
        -- input this order's jobs already verified to the end (it paid nothing more) returns that job too.
        -- Any other input may carry a second payment: it is verified as a new job below, and what it pays
        -- beyond the order is recorded as an unclaimed payment.
        v_new_id := coalesce(
            (SELECT d.job_id FROM iap.deliveries d JOIN iap.jobs j ON j.id = d.job_id
             WHERE d.order_id = enqueue_job.p_order_id AND j.receipt_sha256 = v_sha
             ORDER BY d.delivered_at DESC, d.job_id DESC LIMIT 1),
            (SELECT max(j.id) FROM iap.jobs j
             WHERE j.order_id = enqueue_job.p_order_id AND j.receipt_sha256 = v_sha AND j.state = 'succeeded'));
        IF v_new_id IS NOT NULL THEN
            RETURN v_new_id;
        END IF;
    END IF;

    SELECT * INTO v_active FROM iap.jobs
    WHERE order_id = enqueue_job.p_order_id AND state IN ('pending', 'running') FOR UPDATE;
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
    VALUES (v_new_id, enqueue_job.p_order_id, enqueue_job.p_kind, enqueue_job.p_input, v_sha,
            enqueue_job.p_user_id);
    PERFORM pg_notify('iap_jobs', '');
    RETURN v_new_id;
END $$;

CREATE OR REPLACE FUNCTION iap.enqueue_receipt(
    p_order_id text, p_user_id text, p_product_id text, p_receipt_data text, p_quantity int DEFAULT 1
) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_decoded_length int;
BEGIN
    IF enqueue_receipt.p_receipt_data IS NULL OR btrim(enqueue_receipt.p_receipt_data) = '' THEN
        RAISE EXCEPTION 'enqueue_receipt: receipt_data is empty' USING ERRCODE = '22023';
    END IF;
    IF octet_length(enqueue_receipt.p_receipt_data) > 1048576 THEN
        RAISE EXCEPTION 'enqueue_receipt: receipt_data is % bytes, over the 1 MiB limit',
            octet_length(enqueue_receipt.p_receipt_data) USING ERRCODE = '22023';
    END IF;
    BEGIN
        -- decode() skips white space, so a receipt of only newlines or tabs decodes to nothing.
        v_decoded_length := length(decode(enqueue_receipt.p_receipt_data, 'base64'));
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'enqueue_receipt: receipt_data is not valid base64' USING ERRCODE = '22023';
    END;
    IF v_decoded_length = 0 THEN
        RAISE EXCEPTION 'enqueue_receipt: receipt_data decodes to nothing' USING ERRCODE = '22023';
    END IF;
    RETURN iap.enqueue_job('enqueue_receipt', 'receipt', enqueue_receipt.p_order_id, enqueue_receipt.p_user_id,
        enqueue_receipt.p_product_id, enqueue_receipt.p_receipt_data, enqueue_receipt.p_quantity, NULL, NULL);
END $$;

-- StoreKit 2: what the client sent is a signed transaction (a compact JWS, verified offline) or a transaction
-- id (looked up with the App Store Server API).
CREATE OR REPLACE FUNCTION iap.enqueue_transaction(
    order_id text, user_id text, product_id text, transaction text, quantity int DEFAULT 1,
    app_account_token uuid DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    IF enqueue_transaction.transaction IS NULL OR enqueue_transaction.transaction = '' THEN
        RAISE EXCEPTION 'enqueue_transaction: transaction is empty' USING ERRCODE = '22023';
    END IF;
    IF octet_length(enqueue_transaction.transaction) > 65536 THEN
        RAISE EXCEPTION 'enqueue_transaction: transaction is % bytes, over the 64 KiB limit',
            octet_length(enqueue_transaction.transaction) USING ERRCODE = '22023';
    END IF;
    IF enqueue_transaction.transaction !~ '^[0-9]{1,32}$'
       AND enqueue_transaction.transaction !~ '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$' THEN
        RAISE EXCEPTION 'enqueue_transaction: transaction is neither a decimal transaction id nor a compact JWS'
            USING ERRCODE = '22023';
    END IF;
    RETURN iap.enqueue_job('enqueue_transaction', 'transaction', enqueue_transaction.order_id,
        enqueue_transaction.user_id, enqueue_transaction.product_id, enqueue_transaction.transaction,
        enqueue_transaction.quantity, enqueue_transaction.app_account_token, NULL);
END $$;

-- Google Play: the purchase token the client got from Play Billing. The lookup needs the order's product id.
CREATE OR REPLACE FUNCTION iap.enqueue_google_purchase(
    order_id text, user_id text, product_id text, purchase_token text, quantity int DEFAULT 1,
    account_id text DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    IF enqueue_google_purchase.purchase_token IS NULL OR enqueue_google_purchase.purchase_token = '' THEN
        RAISE EXCEPTION 'enqueue_google_purchase: purchase_token is empty' USING ERRCODE = '22023';
    END IF;
    IF octet_length(enqueue_google_purchase.purchase_token) > 4096 THEN
        RAISE EXCEPTION 'enqueue_google_purchase: purchase_token is % bytes, over the 4 KiB limit',
            octet_length(enqueue_google_purchase.purchase_token) USING ERRCODE = '22023';
    END IF;
    -- Tokens are URL path segments: letters, digits and a few marks; nothing that needs escaping.
    IF enqueue_google_purchase.purchase_token !~ '^[A-Za-z0-9._:-]+$' THEN
        RAISE EXCEPTION 'enqueue_google_purchase: purchase_token holds characters a Play token never has'
            USING ERRCODE = '22023';
    END IF;
    IF enqueue_google_purchase.account_id IS NOT NULL THEN
        PERFORM iap.check_identifier('enqueue_google_purchase', 'account_id',
            enqueue_google_purchase.account_id);
    END IF;
    RETURN iap.enqueue_job('enqueue_google_purchase', 'google_purchase', enqueue_google_purchase.order_id,
        enqueue_google_purchase.user_id, enqueue_google_purchase.product_id, enqueue_google_purchase.purchase_token,
        enqueue_google_purchase.quantity, NULL, enqueue_google_purchase.account_id);
END $$;
