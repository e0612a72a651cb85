-- Operator functions. They raise SQLSTATE P0002 (no_data_found) for an unknown order and 55000
-- (object_not_in_prerequisite_state) when the order is in no state to do it; `receiptd` maps
-- those to exit codes 3 and 4. SECURITY DEFINER so that receiptd_operator needs no table rights;
-- the fixed search_path keeps callers from substituting objects.

-- One row of the operators' audit trail (iap.operator_actions). The actor is the transaction's
-- `receiptd.actor` (the console's signed-in name, the CLI's OS user; `SET LOCAL` by the caller), else the
-- database login. Every operator function below calls it on success, in its own transaction; a caller
-- records a refusal itself after the refused transaction rolled back.
CREATE OR REPLACE FUNCTION iap.record_operator_action(action text, target text, result text, order_id text)
RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    INSERT INTO iap.operator_actions (actor, action, target, result, order_id)
    VALUES (coalesce(nullif(current_setting('receiptd.actor', true), ''), session_user),
            coalesce(record_operator_action.action, ''), coalesce(record_operator_action.target, ''),
            coalesce(record_operator_action.result, ''), record_operator_action.order_id)
$$;

-- A fresh pending job, due now, with the latest job's input and kind, for an order that is not full
-- and has no active job. Locks the order row first, as enqueue_receipt does.
CREATE OR REPLACE FUNCTION iap.retry_order(p_order_id text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_order  iap.orders%ROWTYPE;
    v_latest iap.jobs%ROWTYPE;
    v_new_id bigint;
BEGIN
    SELECT * INTO v_order FROM iap.orders WHERE order_id = retry_order.p_order_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'retry_order: no order %', retry_order.p_order_id USING ERRCODE = 'P0002';
    END IF;
    IF v_order.outcome = 'full' THEN
        RAISE EXCEPTION 'retry_order: order % is already full', retry_order.p_order_id USING ERRCODE = '55000';
    END IF;
    SELECT * INTO v_latest FROM iap.jobs
    WHERE order_id = retry_order.p_order_id AND state IN ('pending', 'running');
    IF FOUND THEN
        RAISE EXCEPTION 'retry_order: order % already has % job %', retry_order.p_order_id, v_latest.state, v_latest.id
            USING ERRCODE = '55000';
    END IF;
    SELECT * INTO v_latest FROM iap.jobs WHERE order_id = retry_order.p_order_id ORDER BY id DESC LIMIT 1;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'retry_order: order % has no job, so no receipt to retry', retry_order.p_order_id
            USING ERRCODE = 'P0002';
    END IF;
    -- The same input as the latest job, of the same kind (a transaction or a purchase token is no receipt),
    -- sent by the same user.
    INSERT INTO iap.jobs (order_id, kind, receipt_data, receipt_sha256, submitted_by)
    VALUES (retry_order.p_order_id, v_latest.kind, v_latest.receipt_data, v_latest.receipt_sha256,
            v_latest.submitted_by)
    RETURNING id INTO v_new_id;
    PERFORM pg_notify('iap_jobs', v_new_id::text);
    PERFORM iap.record_operator_action('retry', retry_order.p_order_id, 'job ' || v_new_id, retry_order.p_order_id);
    RETURN v_new_id;
END $$;

-- Cancels the order's active job and returns how many jobs it cancelled (0 or 1). A running job's
-- daemon aborts on the notification, and records nothing because the job is no longer running
-- under it. The order's outcome is left as it was. A provisional grant of the order, which nothing would
-- confirm or refute any more, is handed back (`provisional_cancelled`, iap.cancel_provisional_grant).
CREATE OR REPLACE FUNCTION iap.cancel_order(p_order_id text) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_active iap.jobs%ROWTYPE;
BEGIN
    PERFORM 1 FROM iap.orders WHERE order_id = cancel_order.p_order_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'cancel_order: no order %', cancel_order.p_order_id USING ERRCODE = 'P0002';
    END IF;
    SELECT * INTO v_active FROM iap.jobs
    WHERE order_id = cancel_order.p_order_id AND state IN ('pending', 'running') FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM iap.record_operator_action('cancel', cancel_order.p_order_id, 'refused: no pending or running job',
                                           cancel_order.p_order_id);
        RETURN 0;
    END IF;
    UPDATE iap.jobs
    SET state = 'cancelled', finished_at = now(), locked_by = NULL, heartbeat_at = NULL,
        last_error = 'cancelled by ' || session_user
    WHERE id = v_active.id;
    IF v_active.state = 'running' THEN
        PERFORM pg_notify('iap_job_cancel', v_active.id::text);
    END IF;
    PERFORM iap.cancel_provisional_grant(cancel_order.p_order_id);
    PERFORM iap.record_operator_action('cancel', cancel_order.p_order_id, 'cancelled job ' || v_active.id,
                                       cancel_order.p_order_id);
    RETURN 1;
END $$;

-- An operator gives an unclaimed payment to the order it was meant for, through the same exactly-once ledger.
-- Locks the order before the payment, as a settle does (orders in order_id order, then the payments it
-- delivers), and tries again after a deadlock it still loses (a settle inserting the same ledger row).
CREATE OR REPLACE FUNCTION iap.assign_payment(transaction_id text, order_id text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
DECLARE
    v_payment   iap.unclaimed_payments%ROWTYPE;
    v_order     iap.orders%ROWTYPE;
    v_delivered int;
    v_active    iap.jobs%ROWTYPE;
    v_finder    bigint;
    v_kind      text;
BEGIN
    FOR v_try IN 1..5 LOOP
        BEGIN
            SELECT * INTO v_order FROM iap.orders WHERE order_id = assign_payment.order_id FOR UPDATE;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'assign_payment: no order %', assign_payment.order_id USING ERRCODE = 'P0002';
            END IF;
            SELECT * INTO v_payment FROM iap.unclaimed_payments
            WHERE transaction_id = assign_payment.transaction_id FOR UPDATE;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'assign_payment: no unclaimed payment %', assign_payment.transaction_id
                    USING ERRCODE = 'P0002';
            END IF;
            IF v_payment.assigned_at IS NOT NULL
               OR EXISTS (SELECT 1 FROM iap.deliveries WHERE transaction_id = assign_payment.transaction_id) THEN
                RAISE EXCEPTION 'assign_payment: payment % is already delivered', assign_payment.transaction_id
                    USING ERRCODE = '55000';
            END IF;
            -- A store reported it refunded or revoked (iap.revoked_transactions): nothing delivers it.
            IF EXISTS (SELECT 1 FROM iap.revoked_transactions r
                       WHERE r.store = v_payment.store AND r.transaction_id = assign_payment.transaction_id) THEN
                RAISE EXCEPTION 'assign_payment: payment % was refunded or revoked', assign_payment.transaction_id
                    USING ERRCODE = '55000';
            END IF;
            IF v_order.product_id <> v_payment.product_id THEN
                RAISE EXCEPTION 'assign_payment: payment % is for product %, order % for %',
                    assign_payment.transaction_id, v_payment.product_id, assign_payment.order_id, v_order.product_id
                    USING ERRCODE = '55000';
            END IF;
            IF v_order.outcome = 'full' OR v_order.delivered_quantity >= v_order.quantity THEN
                RAISE EXCEPTION 'assign_payment: order % is already full', assign_payment.order_id
                    USING ERRCODE = '55000';
            END IF;
            -- The job that found the payment, unless retention purged it: the key share keeps a purge from
            -- deleting it before the ledger row below names it.
            SELECT id INTO v_finder FROM iap.jobs WHERE id = v_payment.job_id FOR KEY SHARE;
            -- The catalogue's kind, the store's word first (as a settle reads it).
            SELECT coalesce(p.store_kind, p.kind) INTO v_kind FROM iap.products p
            WHERE p.store = v_payment.store AND p.product_id = v_payment.product_id;
            -- A Google subscription's payment is one of its periods (the subscription is made below).
            INSERT INTO iap.deliveries (
                transaction_id, order_id, user_id, product_id, quantity, purchase_date, environment, job_id, store,
                product_kind, subscription_id, period_start
            )
            VALUES (assign_payment.transaction_id, assign_payment.order_id, v_order.user_id, v_order.product_id,
                    v_payment.quantity, v_payment.purchase_date, v_payment.environment, v_payment.job_id,
                    v_payment.store, v_kind,
                    CASE WHEN v_payment.store = 'google' AND v_kind = 'auto_renewable'
                         THEN 'google:' || coalesce(v_payment.original_transaction_id, assign_payment.transaction_id)
                    END,
                    CASE WHEN v_payment.store = 'google' AND v_kind = 'auto_renewable' THEN v_payment.purchase_date END);
            -- Google refunds a purchase nobody acknowledged within three days: its finalization is owed from the
            -- transaction that delivers it, and the GoogleFinalizer makes it once. By the catalogue's kind, as
            -- the daemon does: a consumable is consumed, a subscription acknowledged through
            -- purchases.subscriptions.acknowledge, anything else acknowledged. A product not in the
            -- catalogue is acknowledged whatever GOOGLE_PLAY_FINALIZE says (SQL cannot read the daemon's
            -- setting): that keeps the payment, where consuming a product the app does not consume would be wrong.
            -- A renewal nobody claimed (recorded with its subscription's first order) owes none: Google's
            -- acknowledgement is the subscription's first purchase's.
            IF v_payment.store = 'google' AND (v_payment.original_transaction_id IS NULL
                                               OR v_payment.original_transaction_id = assign_payment.transaction_id) THEN
                INSERT INTO iap.google_finalizations (transaction_id, order_id, product_id, purchase_token, action)
                VALUES (assign_payment.transaction_id, assign_payment.order_id, v_payment.product_id,
                        v_payment.purchase_token,
                        CASE v_kind WHEN 'consumable' THEN 'consume' WHEN 'auto_renewable' THEN 'acknowledge_subscription'
                                    ELSE 'acknowledge' END)
                ON CONFLICT (transaction_id) DO NOTHING;
            END IF;
            -- A Google subscription becomes the player's as a settle makes one (its history, subscription.started),
            -- and its ledger row one of its periods. Google's answer is not kept with the payment: the row is read
            -- again at once, which brings its state, entitlement and environment, and resolves a renewal waiting
            -- for its token; its later periods are then renewal orders. One that exists is left as it is.
            IF v_payment.store = 'google' AND v_kind = 'auto_renewable' THEN
                INSERT INTO iap.subscriptions (subscription_id, store, user_id, order_id, product_id, state,
                                               environment, latest_transaction_id, purchase_token, read_due_at)
                VALUES ('google:' || coalesce(v_payment.original_transaction_id, assign_payment.transaction_id),
                        'google', v_order.user_id, assign_payment.order_id, v_payment.product_id, 'active',
                        coalesce(v_payment.environment, 'Production'), assign_payment.transaction_id,
                        v_payment.purchase_token, now())
                ON CONFLICT (subscription_id) DO NOTHING;
            END IF;
            -- An App Store payment without an app account token (an offer code redeemed in the App Store, a purchase
            -- outside the game's checkout) given to an order that has one: Apple is told whose it is, so that its
            -- later notifications name the player. The daemons make the call (iap.app_account_token_calls).
            IF v_payment.store = 'apple' AND v_payment.app_account_token IS NULL
               AND v_order.app_account_token IS NOT NULL THEN
                INSERT INTO iap.app_account_token_calls (transaction_id, original_transaction_id, app_account_token,
                                                         environment, order_id)
                VALUES (assign_payment.transaction_id,
                        coalesce(v_payment.original_transaction_id, assign_payment.transaction_id),
                        v_order.app_account_token, coalesce(v_payment.environment, 'Production'),
                        assign_payment.order_id)
                ON CONFLICT (transaction_id) DO NOTHING;
            END IF;
            -- Rows recorded before migration 7 lack the original id: the transaction id stands in for it.
            INSERT INTO iap.transaction_owners (original_transaction_id, user_id, order_id)
            VALUES (coalesce(v_payment.original_transaction_id, assign_payment.transaction_id), v_order.user_id,
                    assign_payment.order_id)
            ON CONFLICT DO NOTHING;
            v_delivered := v_order.delivered_quantity + v_payment.quantity;
            UPDATE iap.orders
            SET delivered_quantity = v_delivered, status = 'verified', outcome_at = now(),
                outcome = CASE WHEN v_delivered >= v_order.quantity THEN 'full' ELSE 'partial' END::iap.outcome
            WHERE order_id = assign_payment.order_id;
            UPDATE iap.unclaimed_payments SET assigned_order_id = assign_payment.order_id, assigned_at = now()
            WHERE transaction_id = assign_payment.transaction_id;
            IF v_delivered >= v_order.quantity THEN
                SELECT * INTO v_active FROM iap.jobs
                WHERE order_id = assign_payment.order_id AND state IN ('pending', 'running') FOR UPDATE;
                IF FOUND THEN
                    UPDATE iap.jobs
                    SET state = 'superseded', superseded_by = v_finder, finished_at = now(), locked_by = NULL,
                        last_error = 'order paid by payment ' || assign_payment.transaction_id || ', assigned by '
                            || session_user
                    WHERE id = v_active.id;
                    IF v_active.state = 'running' THEN
                        PERFORM pg_notify('iap_job_cancel', v_active.id::text);
                    END IF;
                END IF;
            END IF;
            PERFORM pg_notify('iap_verified',
                json_build_object('order_id', assign_payment.order_id, 'user_id', v_order.user_id)::text);
            PERFORM iap.record_operator_action('assign', assign_payment.transaction_id,
                'order ' || assign_payment.order_id || ' '
                    || CASE WHEN v_delivered >= v_order.quantity THEN 'full' ELSE 'partial' END,
                assign_payment.order_id);
            RETURN;
        EXCEPTION WHEN deadlock_detected THEN
            -- This attempt's locks and writes are rolled back; the other transaction goes on.
            IF v_try = 5 THEN
                RAISE;
            END IF;
        END;
    END LOOP;
END $$;
