-- What the stores report after delivery, as the game sees it: revocations handed over the way deliveries are
-- (owed_revocations, mark_revocation_handled, NOTIFY iap_revoked), and the player's consent to consumption
-- answers. The daemons' processing of store notifications writes through these tables.

-- The two rules between a refunded share (thousandths of a percent, 100000 is all) and whole units, written once.
-- IMMUTABLE SQL without settings, reading no table, inlined into the queries calling them (as job_store is,
-- 08_trust.sql); the daemon's role may execute them, which inlining needs.
-- The whole units a share of `quantity` units revokes: 40% of 5 is 2, of 1 is 0.
CREATE OR REPLACE FUNCTION iap.prorated_units(quantity int, share int) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (quantity::bigint * share / 100000)::int
$$;

-- The share `units` of `quantity` units are: 2 of 5 is 40000.
CREATE OR REPLACE FUNCTION iap.units_share(units int, quantity int) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (units::bigint * 100000 / quantity)::int
$$;

-- The game asks at the player's login, as it asks owed_deliveries: revoked ledger rows it has not handled yet,
-- oldest revocation first. `granted` says whether the game had granted the units (take them back) or not (never
-- grant them). `revocation_percentage` is the share of the row revoked and not yet handled, in thousandths of a
-- percent (NULL: all of it, nothing of it handled before): a prorated refund's share, or what a later, larger
-- refund adds to the share already handled. `revoked_quantity` is the whole units revoked and not yet handled:
-- the row's whole quantity for a revocation of it all, fewer after a partial or prorated refund (0 for a share of
-- under one unit: a game whose goods divide takes back the percentage); a later refund of the rest asks again
-- for the rest.
CREATE OR REPLACE FUNCTION iap.owed_revocations(user_id text)
RETURNS TABLE (transaction_id text, order_id text, product_id text, quantity int, revoked_at timestamptz,
               revocation_reason text, granted boolean, revocation_percentage int, revoked_quantity int)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    SELECT r.* FROM (
        SELECT d.transaction_id, d.order_id, d.product_id, d.quantity, d.revoked_at, d.revocation_reason,
               d.granted_at IS NOT NULL AS granted,
               CASE WHEN d.revoked_at IS NULL THEN d.revocation_percentage - d.revocation_handled_percentage
                    -- Revoked whole with nothing handled before: all of it (NULL), or the share a row revoked
                    -- before migration 20 recorded.
                    WHEN d.revocation_handled_percentage = 0 THEN d.revocation_percentage
                    ELSE 100000 - d.revocation_handled_percentage END AS revocation_percentage,
               (CASE WHEN d.revoked_at IS NOT NULL THEN d.quantity ELSE d.revoked_quantity END)
                   - d.revocation_handled_quantity AS revoked_quantity
        FROM iap.deliveries d
        -- A bare user_id would name the column.
        WHERE d.user_id = owed_revocations.user_id
          AND ((d.revoked_at IS NOT NULL AND d.revocation_handled_at IS NULL)
               OR d.revoked_quantity > d.revocation_handled_quantity
               OR (d.revoked_at IS NULL AND d.revocation_percentage > d.revocation_handled_percentage))
        UNION ALL
        -- A provisional grant verification refuted, one whose verification was cancelled or whose order the game
        -- closed, or one the game took that was exchanged for the real ledger rows (iap.provisional_grants): all
        -- of it is taken back.
        SELECT 'provisional:' || g.order_id, g.order_id, g.product_id, g.quantity, g.resolved_at,
               CASE WHEN g.replaced THEN 'provisional_replaced' WHEN g.state = 'cancelled' THEN 'provisional_cancelled'
                    ELSE 'provisional_refuted' END,
               g.granted_at IS NOT NULL, NULL::int, g.quantity
        FROM iap.provisional_grants g
        WHERE g.user_id = owed_revocations.user_id AND (g.state IN ('refuted', 'cancelled') OR g.replaced)
          AND g.revocation_handled_at IS NULL
    ) r
    ORDER BY r.revoked_at NULLS LAST, r.transaction_id
$$;

-- The game confirms it handled these revocations (all units owed so far): returns how many rows it newly marked
-- (0 the second time). Ids that are not revoked, or unknown, mark nothing.
CREATE OR REPLACE FUNCTION iap.mark_revocation_handled(transaction_ids text[]) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
DECLARE
    v_marked      int;
    v_provisional int;
BEGIN
    IF mark_revocation_handled.transaction_ids IS NULL THEN
        RAISE EXCEPTION 'mark_revocation_handled: transaction_ids must not be null' USING ERRCODE = '22023';
    END IF;
    UPDATE iap.deliveries
    SET revocation_handled_at = CASE WHEN revoked_at IS NOT NULL THEN now() ELSE revocation_handled_at END,
        revocation_handled_quantity = CASE WHEN revoked_at IS NOT NULL THEN quantity ELSE revoked_quantity END,
        revocation_handled_percentage = CASE WHEN revoked_at IS NOT NULL THEN 100000
                                             ELSE greatest(revocation_handled_percentage,
                                                           coalesce(revocation_percentage, 0)) END
    WHERE transaction_id = ANY (mark_revocation_handled.transaction_ids)
      AND ((revoked_at IS NOT NULL AND revocation_handled_at IS NULL) OR revoked_quantity > revocation_handled_quantity
           OR (revoked_at IS NULL AND revocation_percentage > revocation_handled_percentage));
    GET DIAGNOSTICS v_marked = ROW_COUNT;
    -- A refuted, cancelled or replaced provisional grant is handled under its own id, 'provisional:<order_id>'.
    UPDATE iap.provisional_grants SET revocation_handled_at = now()
    WHERE order_id = ANY (ARRAY(SELECT substr(t, char_length('provisional:') + 1)
                                FROM unnest(mark_revocation_handled.transaction_ids) AS t
                                WHERE t LIKE 'provisional:%'))
      AND (state IN ('refuted', 'cancelled') OR replaced) AND revocation_handled_at IS NULL;
    GET DIAGNOSTICS v_provisional = ROW_COUNT;
    RETURN v_marked + v_provisional;
END $$;

-- The player agreed (or no longer agrees) that receiptd answers Apple's consumption requests about their
-- purchases. Without a row the answer is no: nothing is sent.
CREATE OR REPLACE FUNCTION iap.set_consumption_consent(user_id text, consented boolean) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
BEGIN
    PERFORM iap.check_identifier('set_consumption_consent', 'user_id', set_consumption_consent.user_id);
    IF set_consumption_consent.consented IS NULL THEN
        RAISE EXCEPTION 'set_consumption_consent: consented must be true or false, not null' USING ERRCODE = '22023';
    END IF;
    INSERT INTO iap.consumption_consent (user_id, consented, changed_at)
    VALUES (set_consumption_consent.user_id, set_consumption_consent.consented, now())
    ON CONFLICT (user_id) DO UPDATE SET consented = excluded.consented, changed_at = excluded.changed_at;
END $$;

-- The answer of the game or of an operator, checked, and handed to the daemons (`answering`); returns the
-- request's order, if the ledger knows it. Not granted to any role: the two functions above call it.
CREATE OR REPLACE FUNCTION iap.answer_refund(caller text, request_id text, consumed_milliunits int, preference text,
                                             answered_by text)
RETURNS text
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
#variable_conflict use_column
DECLARE
    v_request iap.refund_requests%ROWTYPE;
BEGIN
    IF answer_refund.preference IS NULL
       OR answer_refund.preference NOT IN ('decline', 'grant_full', 'grant_prorated', 'none') THEN
        RAISE EXCEPTION '%: preference must be decline, grant_full, grant_prorated or none, got %',
            answer_refund.caller, coalesce(answer_refund.preference, 'NULL') USING ERRCODE = '22023';
    END IF;
    IF answer_refund.consumed_milliunits IS NOT NULL
       AND answer_refund.consumed_milliunits NOT BETWEEN 0 AND 100000 THEN
        RAISE EXCEPTION '%: consumed_milliunits must be 0 to 100000 (thousandths of a percent), got %',
            answer_refund.caller, answer_refund.consumed_milliunits USING ERRCODE = '22023';
    END IF;
    IF answer_refund.preference = 'grant_prorated'
       AND coalesce(answer_refund.consumed_milliunits, 0) NOT BETWEEN 1 AND 99999 THEN
        RAISE EXCEPTION '%: grant_prorated needs consumed_milliunits strictly between 0 and 100000',
            answer_refund.caller USING ERRCODE = '22023';
    END IF;
    SELECT * INTO v_request FROM iap.refund_requests r WHERE r.request_id = answer_refund.request_id
    ORDER BY r.store LIMIT 1 FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION '%: no refund request %', answer_refund.caller, answer_refund.request_id
            USING ERRCODE = 'P0002';
    END IF;
    IF v_request.state <> 'waiting' OR v_request.answer_by <= now() THEN
        RAISE EXCEPTION '%: refund request % is % already', answer_refund.caller, answer_refund.request_id,
            CASE WHEN v_request.state = 'waiting' THEN 'expired' ELSE v_request.state END USING ERRCODE = '55000';
    END IF;
    UPDATE iap.refund_requests r
    SET state = 'answering', answered_by = answer_refund.answered_by, preference = answer_refund.preference,
        consumed_milliunits = answer_refund.consumed_milliunits, run_at = now()
    WHERE r.notification_id = v_request.notification_id;
    RETURN v_request.order_id;
END $$;

-- A store asks about a refund (iap.refund_requests): the game answers with what only it knows, whether the goods
-- were consumed and what it would like the store to do. 22023 for a bad value, P0002 for an unknown request,
-- 55000 for one already answered or past its deadline. The daemons send the answer; a request the game leaves
-- waiting is answered by the policy (RECEIPTD_REFUND_GAME_WAIT).
CREATE OR REPLACE FUNCTION iap.answer_refund_request(request_id text, consumed_milliunits int, preference text)
RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    SELECT iap.answer_refund('answer_refund_request', answer_refund_request.request_id,
                             answer_refund_request.consumed_milliunits, answer_refund_request.preference, 'game')
$$;

-- An operator answers a waiting request for the game (receiptd refunds answer, the console): as
-- iap.answer_refund_request, `answered_by` operator, recorded in iap.operator_actions as answer_refund.
CREATE OR REPLACE FUNCTION iap.operator_answer_refund(request_id text, consumed_milliunits int, preference text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
#variable_conflict use_column
DECLARE
    v_order text;
BEGIN
    v_order := iap.answer_refund('operator_answer_refund', operator_answer_refund.request_id,
                                 operator_answer_refund.consumed_milliunits, operator_answer_refund.preference,
                                 'operator');
    PERFORM iap.record_operator_action('answer_refund', operator_answer_refund.request_id,
        operator_answer_refund.preference || coalesce(' ' || operator_answer_refund.consumed_milliunits || ' milliunits', ''),
        v_order);
END $$;

-- Each `receiptd run` writes its RECEIPTD_REFUND_ABUSE_LIMIT at start, which the refund trigger of 08_trust.sql
-- applies; the last daemon started wins.
CREATE OR REPLACE FUNCTION iap.set_refund_abuse_limit(refund_abuse_limit int) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    UPDATE iap.trust_policy SET refund_abuse_limit = set_refund_abuse_limit.refund_abuse_limit, updated_at = now()
    WHERE singleton AND refund_abuse_limit IS DISTINCT FROM set_refund_abuse_limit.refund_abuse_limit
$$;

-- The game reports how much of a purchase was consumed before any store asks (the latest report wins): a refund
-- request answered by the policy uses it.
CREATE OR REPLACE FUNCTION iap.report_consumption(transaction_id text, consumed_milliunits int) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
#variable_conflict use_column
BEGIN
    PERFORM iap.check_identifier('report_consumption', 'transaction_id', report_consumption.transaction_id);
    IF report_consumption.consumed_milliunits IS NULL
       OR report_consumption.consumed_milliunits NOT BETWEEN 0 AND 100000 THEN
        RAISE EXCEPTION 'report_consumption: consumed_milliunits must be 0 to 100000 (thousandths of a percent), got %',
            coalesce(report_consumption.consumed_milliunits::text, 'NULL') USING ERRCODE = '22023';
    END IF;
    INSERT INTO iap.consumption_reports (transaction_id, consumed_milliunits, reported_at)
    VALUES (report_consumption.transaction_id, report_consumption.consumed_milliunits, now())
    ON CONFLICT (transaction_id) DO UPDATE
    SET consumed_milliunits = excluded.consumed_milliunits, reported_at = excluded.reported_at;
END $$;

-- A new request the game may answer: NOTIFY iap_refund_requested and a refund.requested webhook with the ledger's
-- facts (written only while a daemon runs with an endpoint, as the triggers of 09_webhooks.sql write theirs).
CREATE OR REPLACE FUNCTION iap.refund_requested() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp SET TimeZone = 'UTC' AS $$
DECLARE
    v_delivery iap.deliveries%ROWTYPE;
BEGIN
    PERFORM pg_notify('iap_refund_requested', json_build_object(
        'request_id', NEW.request_id, 'user_id', NEW.user_id, 'transaction_id', NEW.transaction_id,
        'answer_by', NEW.answer_by)::text);
    IF coalesce((SELECT configured FROM iap.webhook_endpoint WHERE singleton), false) THEN
        SELECT * INTO v_delivery FROM iap.deliveries d
        WHERE d.store = NEW.store AND d.transaction_id = NEW.transaction_id;
        -- The order's row lock before seq is taken, as every event writer of 09_webhooks.sql: an event of the order
        -- another transaction writes meanwhile waits for this one's commit, so seq follows commit order.
        PERFORM 1 FROM iap.orders WHERE order_id = v_delivery.order_id FOR NO KEY UPDATE;
        INSERT INTO iap.webhook_events (type, order_id, user_id, payload)
        VALUES ('refund.requested', v_delivery.order_id, NEW.user_id, jsonb_build_object(
            'request_id', NEW.request_id, 'store', NEW.store, 'transaction_id', NEW.transaction_id,
            'user_id', NEW.user_id, 'order_id', v_delivery.order_id, 'reason', NEW.reason,
            'answer_by', NEW.answer_by, 'delivered', v_delivery.transaction_id IS NOT NULL,
            'granted', v_delivery.granted_at IS NOT NULL, 'product_id', v_delivery.product_id,
            'product_kind', v_delivery.product_kind, 'quantity', v_delivery.quantity, 'price', v_delivery.price,
            'currency', v_delivery.currency,
            'refunds_90_days', iap.refunds_in_90_days(NEW.user_id)));
        PERFORM pg_notify('iap_webhooks', '');
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER refund_requests_requested
AFTER INSERT ON iap.refund_requests
FOR EACH ROW WHEN (NEW.state = 'waiting')
EXECUTE FUNCTION iap.refund_requested();

-- The distinct purchases of a player refunded (whole or in part, by either store) in the last 90 days; Family
-- Sharing revocations are no refund of theirs.
CREATE OR REPLACE FUNCTION iap.refunds_in_90_days(user_id text) RETURNS int
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    SELECT count(*)::int FROM iap.deliveries d
    WHERE d.user_id = refunds_in_90_days.user_id
      AND (d.revoked_at IS NOT NULL OR d.revoked_quantity > 0 OR d.revocation_percentage IS NOT NULL)
      AND coalesce(d.revocation_reason, '') <> 'family_sharing'
      AND coalesce(d.revoked_at, d.store_time, d.delivered_at) > now() - interval '90 days'
$$;

-- Every revocation of a ledger row, whatever made it (an Apple refund or revoke, a Google void, a partial refund
-- of some units), tells game servers listening on iap_revoked, in the transaction that records it.
CREATE OR REPLACE FUNCTION iap.notify_revoked() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    PERFORM pg_notify('iap_revoked', json_build_object(
        'order_id', NEW.order_id, 'user_id', NEW.user_id, 'transaction_id', NEW.transaction_id)::text);
    RETURN NULL;
END $$;

-- revoked_quantity is the units revoked in every state: a row revoked whole has all of its units revoked, whatever
-- revokes it (a refund, a revoke, a void, the last partial refund) and whatever share went before. Written once
-- here for every writer of revoked_at.
CREATE OR REPLACE FUNCTION iap.revoke_all_units() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    NEW.revoked_quantity := NEW.quantity;
    RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER deliveries_revoked_units
BEFORE INSERT OR UPDATE OF revoked_at ON iap.deliveries
FOR EACH ROW WHEN (NEW.revoked_at IS NOT NULL AND NEW.revoked_quantity IS DISTINCT FROM NEW.quantity)
EXECUTE FUNCTION iap.revoke_all_units();

CREATE OR REPLACE TRIGGER deliveries_revoked
AFTER UPDATE OF revoked_at ON iap.deliveries
FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
EXECUTE FUNCTION iap.notify_revoked();

CREATE OR REPLACE TRIGGER deliveries_partly_revoked
AFTER UPDATE OF revoked_quantity, revocation_percentage ON iap.deliveries
FOR EACH ROW WHEN (NEW.revoked_at IS NULL AND (NEW.revoked_quantity > OLD.revoked_quantity
                   OR coalesce(NEW.revocation_percentage, 0) > coalesce(OLD.revocation_percentage, 0)))
EXECUTE FUNCTION iap.notify_revoked();

-- A purchase a store reported itself that an order matches, `input` of `kind` (a signed transaction, Apple's
-- ONE_TIME_CHARGE; a purchase token, Google's ONE_TIME_PRODUCT_PURCHASED, looked up): enqueued for that order as a
-- client's would be (cancel-and-replace included; a token checked as enqueue_google_purchase checks it), so the
-- normal job path verifies and settles it through the same ledger, and a pending Google purchase waits as pending
-- does. The job says who sent it (`apple_notification`, `google_notification`). `caller` names the function in
-- errors. The one body of the two functions below, which the daemons call and which run as their owner.
CREATE OR REPLACE FUNCTION iap.enqueue_notified(caller text, kind text, order_id text, input text) RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry their own names, and the body qualifies them.
#variable_conflict use_column
DECLARE
    v_order iap.orders%ROWTYPE;
    v_job   bigint;
BEGIN
    SELECT * INTO v_order FROM iap.orders WHERE order_id = enqueue_notified.order_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION '%: no order %', enqueue_notified.caller, enqueue_notified.order_id USING ERRCODE = 'P0002';
    END IF;
    IF enqueue_notified.kind = 'google_purchase' THEN
        v_job := iap.enqueue_google_purchase(v_order.order_id, v_order.user_id, v_order.product_id,
            enqueue_notified.input, v_order.quantity, NULL);
    ELSE
        v_job := iap.enqueue_job(enqueue_notified.caller, enqueue_notified.kind, v_order.order_id, v_order.user_id,
            v_order.product_id, enqueue_notified.input, v_order.quantity, NULL, NULL);
    END IF;
    UPDATE iap.jobs SET submitted_by = iap.job_store(enqueue_notified.kind) || '_notification'
    WHERE id = v_job AND state = 'pending' AND receipt_data = enqueue_notified.input;
    RETURN v_job;
END $$;

-- Apple's ONE_TIME_CHARGE an order matches: its signed transaction (iap.enqueue_notified).
CREATE OR REPLACE FUNCTION iap.enqueue_notified_charge(order_id text, transaction text) RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    SELECT iap.enqueue_notified('enqueue_notified_charge', 'transaction', enqueue_notified_charge.order_id,
                                enqueue_notified_charge.transaction)
$$;

-- Google's ONE_TIME_PRODUCT_PURCHASED an order matches: its purchase token (iap.enqueue_notified).
CREATE OR REPLACE FUNCTION iap.enqueue_notified_google_purchase(order_id text, purchase_token text) RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    SELECT iap.enqueue_notified('enqueue_notified_google_purchase', 'google_purchase',
                                enqueue_notified_google_purchase.order_id,
                                enqueue_notified_google_purchase.purchase_token)
$$;

-- A Google ledger row's units revoked by quantity-based partial refunds are their sum (iap.google_partial_refunds),
-- at most its quantity, which revokes the whole row (reason partial_refunds). The one statement of that rule for
-- rows already delivered: a notification's processing, the voided poll and the daemons' sweep all call it.
-- Returns how many ledger rows it changed.
CREATE OR REPLACE FUNCTION iap.revoke_refunded_units(transaction_ids text[]) RETURNS int
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    WITH changed AS (
        UPDATE iap.deliveries d SET revoked_quantity = least(d.quantity, s.units),
            revocation_percentage = CASE WHEN s.units < d.quantity THEN iap.units_share(s.units, d.quantity) END,
            revoked_at = CASE WHEN s.units >= d.quantity THEN s.last_voided_at END,
            revocation_reason = CASE WHEN s.units >= d.quantity THEN 'partial_refunds' END
        FROM (SELECT transaction_id, sum(voided_quantity)::int AS units, max(voided_at) AS last_voided_at
              FROM iap.google_partial_refunds
              WHERE transaction_id = ANY (revoke_refunded_units.transaction_ids)
              GROUP BY transaction_id) s
        WHERE d.store = 'google' AND d.transaction_id = s.transaction_id AND d.revoked_at IS NULL
          AND d.revoked_quantity < least(d.quantity, s.units)
        RETURNING 1
    )
    SELECT count(*)::int FROM changed
$$;

-- A Google purchase delivered after quantity-based partial refunds of it were recorded (the refund came first):
-- its ledger row starts with those units revoked, all of them revoking the row.
CREATE OR REPLACE FUNCTION iap.apply_partial_refunds() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_units int;
    v_last  timestamptz;
BEGIN
    SELECT sum(voided_quantity)::int, max(voided_at) INTO v_units, v_last
    FROM iap.google_partial_refunds WHERE transaction_id = NEW.transaction_id;
    IF v_units IS NOT NULL THEN
        NEW.revoked_quantity := least(NEW.quantity, v_units);
        IF v_units < NEW.quantity THEN
            NEW.revocation_percentage := iap.units_share(v_units, NEW.quantity);
        END IF;
        IF v_units >= NEW.quantity AND NEW.revoked_at IS NULL THEN
            NEW.revoked_at := v_last;
            NEW.revocation_reason := 'partial_refunds';
        END IF;
    END IF;
    RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER deliveries_partial_refunds
BEFORE INSERT ON iap.deliveries
FOR EACH ROW WHEN (NEW.store = 'google')
EXECUTE FUNCTION iap.apply_partial_refunds();

-- A Google purchase of several line items (productsv2) is one ledger row per line: the first under the purchase's
-- ledger id, the n-th under that id and '#n', all delivered by one job. Google voids the purchase as a whole (the
-- voided poll, VOIDED_PURCHASE), naming the first: the other lines are revoked with it. A line whose own units were
-- all refunded ('partial_refunds') revokes only itself.
CREATE OR REPLACE FUNCTION iap.revoke_google_lines() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    UPDATE iap.deliveries d SET revoked_at = NEW.revoked_at, revocation_reason = NEW.revocation_reason,
        revocation_percentage = NULL
    WHERE d.job_id = NEW.job_id AND d.store = 'google' AND d.revoked_at IS NULL
      AND starts_with(d.transaction_id, NEW.transaction_id || '#');
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER deliveries_google_lines_revoked
AFTER UPDATE OF revoked_at ON iap.deliveries
FOR EACH ROW WHEN (NEW.store = 'google' AND OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
                   AND NEW.revocation_reason IS DISTINCT FROM 'partial_refunds' AND NEW.job_id IS NOT NULL
                   AND strpos(NEW.transaction_id, '#') = 0)
EXECUTE FUNCTION iap.revoke_google_lines();

-- RESCIND_CONSENT: a parent or guardian withdrew consent for the player behind an app transaction, and Apple stops
-- the app from launching. receiptd changes no purchase; it tells the game, which may keep its players' app
-- transaction ids and end that player's sessions: NOTIFY iap_consent_rescinded, and a consent.rescinded webhook
-- (written only while a daemon runs with an endpoint, as the triggers of 09_webhooks.sql write theirs). The
-- daemons' processing calls it, in the transaction that marks the notification processed; times in UTC.
CREATE OR REPLACE FUNCTION iap.rescind_consent(app_transaction_id text, environment text, signed_at timestamptz,
                                               notification_id bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp SET TimeZone = 'UTC' AS $$
DECLARE
    v_news jsonb := jsonb_build_object('app_transaction_id', app_transaction_id, 'environment', environment,
                                       'signed_at', signed_at);
BEGIN
    PERFORM pg_notify('iap_consent_rescinded', v_news::text);
    IF coalesce((SELECT configured FROM iap.webhook_endpoint WHERE singleton), false) THEN
        INSERT INTO iap.webhook_events (type, payload)
        VALUES ('consent.rescinded', v_news || jsonb_build_object('notification_id', notification_id));
        PERFORM pg_notify('iap_webhooks', '');
    END IF;
END $$;

-- Every change of a subscription's state, entitlement, product, renewal or player is kept in
-- iap.subscription_history, and a change of state or player tells game servers listening on iap_subscription, in the
-- transaction that makes it.
CREATE OR REPLACE FUNCTION iap.subscription_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' OR (OLD.state, OLD.product_id, OLD.entitled_until, OLD.auto_renew, OLD.user_id)
                           IS DISTINCT FROM (NEW.state, NEW.product_id, NEW.entitled_until, NEW.auto_renew, NEW.user_id) THEN
        INSERT INTO iap.subscription_history (subscription_id, state, product_id, entitled_until, auto_renew, store_time,
                                              user_id)
        VALUES (NEW.subscription_id, NEW.state, NEW.product_id, NEW.entitled_until, NEW.auto_renew, NEW.store_time,
                NEW.user_id);
    END IF;
    IF TG_OP = 'INSERT' OR (OLD.state, OLD.user_id) IS DISTINCT FROM (NEW.state, NEW.user_id) THEN
        PERFORM pg_notify('iap_subscription', json_build_object(
            'subscription_id', NEW.subscription_id, 'user_id', NEW.user_id, 'state', NEW.state)::text);
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER subscriptions_changed
AFTER INSERT OR UPDATE ON iap.subscriptions
FOR EACH ROW EXECUTE FUNCTION iap.subscription_changed();

-- When a subscription is next read again from its store, as its news leaves it (every writer of iap.subscriptions
-- sets read_due_at with this, unless a re-read is asked for at once): an entitled one when its entitlement ends (a
-- renewal or an expiry whose news was lost is found then), and every ten seconds while it stays past its end
-- (the store's news of that period is late: read again well within a minute, paced); one
-- whose payment is being retried or that waits, in six hours; an ended one, never.
CREATE OR REPLACE FUNCTION iap.subscription_read_due(state text, entitled_until timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    SELECT CASE
        WHEN subscription_read_due.state IN ('active', 'grace_period') AND subscription_read_due.entitled_until > now()
            THEN subscription_read_due.entitled_until
        WHEN subscription_read_due.state IN ('active', 'grace_period') THEN now() + interval '10 seconds'
        WHEN subscription_read_due.state IN ('billing_retry', 'on_hold', 'paused', 'pending')
            THEN now() + interval '6 hours'
    END
$$;

-- Later periods a settle found in a receipt (which lists every period of a subscription) and delivers in the same
-- transaction: each its own order renewal:<transaction_id> for the subscription's player, as
-- enqueue_subscription_period makes one, with no job. Only renewal orders, and never over an existing order.
CREATE OR REPLACE FUNCTION iap.open_renewal_orders(orders jsonb) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    INSERT INTO iap.orders (order_id, user_id, product_id, quantity)
    SELECT r.order_id, r.user_id, r.product_id, 1
    FROM jsonb_to_recordset(orders) AS r(order_id text, user_id text, product_id text)
    WHERE r.order_id LIKE 'renewal:%'
    ON CONFLICT (order_id) DO NOTHING
$$;

-- A later period of a known subscription (a renewal, an upgrade's new period, an offer period): its own order,
-- `renewal:<transaction_id>`, for the subscription's player, fed the period's signed transaction as a client's input
-- is (iap.enqueue_notified), so the normal job path verifies it and the ledger delivers it once. NULL when the
-- subscription is not known (its first period is the checkout's) or the ledger already holds the transaction.
-- An App Store period whose order is new (every renewal of a storm) has no job to replace and needs none of
-- enqueue_job's checks of an existing order: its job is written here at once, as enqueue_job writes a new order's.
CREATE OR REPLACE FUNCTION iap.enqueue_subscription_period(subscription_id text, transaction_id text, product_id text,
                                                           transaction text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
#variable_conflict use_column
DECLARE
    v_user  text;
    v_store text;
    v_order text := 'renewal:' || enqueue_subscription_period.transaction_id;
    v_job   bigint;
BEGIN
    SELECT s.user_id, s.store INTO v_user, v_store FROM iap.subscriptions s
    WHERE s.subscription_id = enqueue_subscription_period.subscription_id;
    IF NOT FOUND OR EXISTS (SELECT 1 FROM iap.deliveries d
                            WHERE d.store = v_store AND d.transaction_id = enqueue_subscription_period.transaction_id) THEN
        RETURN NULL;
    END IF;
    INSERT INTO iap.orders (order_id, user_id, product_id, quantity)
    VALUES (v_order, v_user, enqueue_subscription_period.product_id, 1)
    ON CONFLICT (order_id) DO NOTHING;
    -- The ids are good (enqueue_job's test; a bad one goes the long way, which says what is wrong).
    IF FOUND AND v_store = 'apple' AND (char_length(v_order) BETWEEN 1 AND 255
            AND char_length(v_user) BETWEEN 1 AND 255
            AND char_length(enqueue_subscription_period.product_id) BETWEEN 1 AND 255
            AND v_order || v_user || enqueue_subscription_period.product_id !~ '[\u0001-\u001f\u007f-\u009f]') IS TRUE THEN
        v_job := nextval(pg_get_serial_sequence('iap.jobs', 'id'));
        INSERT INTO iap.jobs (id, order_id, kind, receipt_data, receipt_sha256, submitted_by)
        VALUES (v_job, v_order, 'transaction', enqueue_subscription_period.transaction,
                encode(sha256(convert_to(enqueue_subscription_period.transaction, 'UTF8')), 'hex'), 'apple_notification');
        PERFORM pg_notify('iap_jobs', '');
        RETURN v_job;
    END IF;
    -- Apple's period is verified by its signed transaction, Google's by the subscription's purchase token.
    RETURN iap.enqueue_notified('enqueue_subscription_period',
                                CASE v_store WHEN 'google' THEN 'google_purchase' ELSE 'transaction' END, v_order,
                                enqueue_subscription_period.transaction);
END $$;
