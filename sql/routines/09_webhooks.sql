-- Webhooks: the events the game server is told about over HTTPS (Standard Webhooks), written to
-- iap.webhook_events by triggers on the tables each change touches, so that every path making the change (a
-- settle, a store notification, a voided-purchases poll, an operator's assignment, the trust rules) writes its
-- event in its own transaction, and a change rolled back leaves none. Nothing is written unless a daemon runs
-- with RECEIPTD_WEBHOOK_URL (iap.webhook_endpoint.configured). Each event wakes the senders (NOTIFY
-- iap_webhooks, a hint: they poll too).
-- The trigger functions run as the role making the change (the daemon's, or a function's owner), which may
-- insert events, read the endpoint row and lock orders, and they call no other function of ours. An event's id is
-- its column's default (migration 18).
--
-- In order per order: the senders send an order's event only when no earlier one (lower seq) of it is pending, so
-- seq must follow commit order among an order's events. seq is taken at insert, so each trigger first takes the
-- order's row lock (FOR NO KEY UPDATE, as a settle's or an operator function's FOR UPDATE, and any UPDATE of the
-- order, conflict with it; a foreign key's check does not): a second transaction writing an event of the order
-- waits until the first commits, and takes the later seq. A daemon's wait is bounded by its lock_timeout, as for
-- any of its statements needing the order; the statement fails and is tried again. Nothing is locked when no
-- endpoint is configured.
--
-- Every read of the one-row iap.webhook_endpoint names its key (`WHERE singleton`): the daemon's sessions run with
-- enable_seqscan off, and a sequential scan costed as disabled is far above jit_above_cost, so each statement
-- reading it would be compiled with LLVM (half a second per webhook claim, measured).
--
-- Events, and their `data`:
-- - order.verified: units delivered to an order (the ledger rows one statement added), or a provisional grant
--   (`provisional` true, the one row `provisional:<order_id>`);
-- - delivery.revoked: a ledger row revoked (refund, revoke, void), more of its units revoked by a partial refund
--   (`revoked_quantity` of `quantity`), or a provisional grant refuted, cancelled or exchanged
--   (`provisional_refuted`, `provisional_cancelled`, `provisional_replaced`);
-- - delivery.reinstated: a revocation or a refunded share lifted (`reinstated_quantity`: the units owed again);
-- - payment.unclaimed: a payment no order claimed was recorded;
-- - order.failed: an order ended `invalid` or `failed`.

-- Timestamps in `data` are written in UTC whatever the session's TimeZone (`…+00:00`), so every event reads
-- alike whichever role or session made the change. The data never holds a receipt, a purchase token or a signed
-- transaction.

-- order.verified for the ledger rows an INSERT added, one event per order; and delivery.revoked for a row added
-- with units already revoked (a Google partial refund recorded before the purchase was delivered), which
-- owed_revocations lists at once. No JIT: the planner only guesses the transition table's size, and must never
-- compile this insert with LLVM on the settle path, as for apply_trust_rules.
CREATE OR REPLACE FUNCTION iap.webhook_deliveries_added() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp SET jit = off SET TimeZone = 'UTC' AS $$
BEGIN
    IF NOT coalesce((SELECT configured FROM iap.webhook_endpoint WHERE singleton), false) THEN
        RETURN NULL;
    END IF;
    -- The orders' row locks, in order_id order as a settle takes them (a settle holds them already).
    PERFORM 1 FROM iap.orders o WHERE o.order_id IN (SELECT n.order_id FROM added n)
    ORDER BY o.order_id FOR NO KEY UPDATE;
    INSERT INTO iap.webhook_events (type, order_id, user_id, payload)
    SELECT e.type, e.order_id, e.user_id, e.payload
    FROM (
        SELECT 'order.verified' AS type, n.order_id, min(n.user_id) AS user_id,
               jsonb_build_object('order_id', n.order_id, 'user_id', min(n.user_id), 'store', min(n.store),
                                  'provisional', false,
                                  'deliveries', jsonb_agg(jsonb_build_object(
                                      'transaction_id', n.transaction_id, 'product_id', n.product_id,
                                      'quantity', n.quantity, 'purchase_date', n.purchase_date,
                                      'environment', n.environment)
                                  ORDER BY n.transaction_id)) AS payload,
               0 AS rank, NULL::text AS transaction_id
        FROM added n
        GROUP BY n.order_id
        UNION ALL
        SELECT 'delivery.revoked', n.order_id, n.user_id,
               jsonb_build_object('order_id', n.order_id, 'user_id', n.user_id, 'store', n.store,
                                  'transaction_id', n.transaction_id, 'product_id', n.product_id,
                                  'quantity', n.quantity,
                                  'revoked_quantity', CASE WHEN n.revoked_at IS NOT NULL THEN n.quantity
                                                           ELSE n.revoked_quantity END,
                                  'reason', n.revocation_reason, 'revoked_at', n.revoked_at,
                                  'revocation_percentage', n.revocation_percentage,
                                  'granted', n.granted_at IS NOT NULL),
               1, n.transaction_id
        FROM added n
        WHERE n.revoked_at IS NOT NULL OR n.revoked_quantity > 0 OR n.revocation_percentage > 0
        -- Each order's verification before its revocations, in the order the ids were written.
        ORDER BY order_id, rank, transaction_id
    ) e;
    IF FOUND THEN
        PERFORM pg_notify('iap_webhooks', '');
    END IF;
    RETURN NULL;
END $$;

-- delivery.revoked when a ledger row is revoked (revoked_at set: a refund, a revoke, a void, the last units of
-- partial refunds) or more of it is (revoked_quantity or revocation_percentage grew while revoked_at is unset: a
-- partial or prorated refund),
-- exactly when owed_revocations has something new to hand over; delivery.reinstated when its revocation, or the
-- share a prorated refund revoked, is lifted, with the units owed_deliveries owes again: all of them for a row not
-- granted (or whose granted_at the lift cleared), else those the game had taken back (reinstated_quantity grew).
-- A revocation recorded again (Apple resends REFUND; a row whose revoked_at is rewritten) writes nothing: the
-- trigger's WHEN leaves it out.
CREATE OR REPLACE FUNCTION iap.webhook_delivery_revocation() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp SET TimeZone = 'UTC' AS $$
DECLARE
    v_data jsonb;
BEGIN
    IF NOT coalesce((SELECT configured FROM iap.webhook_endpoint WHERE singleton), false) THEN
        RETURN NULL;
    END IF;
    v_data := jsonb_build_object('order_id', NEW.order_id, 'user_id', NEW.user_id, 'store', NEW.store,
                                 'transaction_id', NEW.transaction_id, 'product_id', NEW.product_id,
                                 'quantity', NEW.quantity, 'granted', NEW.granted_at IS NOT NULL);
    PERFORM 1 FROM iap.orders WHERE order_id = NEW.order_id FOR NO KEY UPDATE;
    IF NEW.revoked_at IS NULL
       AND (OLD.revoked_at IS NOT NULL OR (NEW.revoked_quantity = 0 AND NEW.revocation_percentage IS NULL)) THEN
        INSERT INTO iap.webhook_events (type, order_id, user_id, payload)
        VALUES ('delivery.reinstated', NEW.order_id, NEW.user_id,
                v_data || jsonb_build_object(
                    'reinstated_quantity', CASE WHEN NEW.granted_at IS NULL THEN NEW.quantity
                                                ELSE NEW.reinstated_quantity - OLD.reinstated_quantity END));
    ELSE
        INSERT INTO iap.webhook_events (type, order_id, user_id, payload)
        VALUES ('delivery.revoked', NEW.order_id, NEW.user_id,
                v_data || jsonb_build_object(
                    'revoked_quantity', CASE WHEN NEW.revoked_at IS NOT NULL THEN NEW.quantity
                                             ELSE NEW.revoked_quantity END,
                    'reason', NEW.revocation_reason, 'revoked_at', NEW.revoked_at,
                    'revocation_percentage', NEW.revocation_percentage));
    END IF;
    PERFORM pg_notify('iap_webhooks', '');
    RETURN NULL;
END $$;

-- order.verified for a new provisional grant; delivery.revoked for one refuted, cancelled or exchanged
-- (`provisional_refuted`, `provisional_cancelled`, `provisional_replaced`, as owed_revocations names them). Other
-- changes of a grant (the game granted it, handled its revocation, a confirmation) write nothing.
CREATE OR REPLACE FUNCTION iap.webhook_provisional_grant() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp SET TimeZone = 'UTC' AS $$
DECLARE
    v_row jsonb;
BEGIN
    IF TG_OP = 'UPDATE' AND NOT ((NEW.state IN ('refuted', 'cancelled') AND OLD.state = 'unconfirmed')
                                 OR (NEW.replaced AND NOT OLD.replaced)) THEN
        RETURN NULL;
    END IF;
    IF NOT coalesce((SELECT configured FROM iap.webhook_endpoint WHERE singleton), false) THEN
        RETURN NULL;
    END IF;
    v_row := jsonb_build_object('transaction_id', 'provisional:' || NEW.order_id, 'product_id', NEW.product_id,
                                'quantity', NEW.quantity);
    PERFORM 1 FROM iap.orders WHERE order_id = NEW.order_id FOR NO KEY UPDATE;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO iap.webhook_events (type, order_id, user_id, payload)
        VALUES ('order.verified', NEW.order_id, NEW.user_id,
                jsonb_build_object('order_id', NEW.order_id, 'user_id', NEW.user_id, 'store', NEW.store,
                                   'provisional', true, 'deliveries', jsonb_build_array(v_row)));
    ELSE
        INSERT INTO iap.webhook_events (type, order_id, user_id, payload)
        VALUES ('delivery.revoked', NEW.order_id, NEW.user_id,
                jsonb_build_object('order_id', NEW.order_id, 'user_id', NEW.user_id, 'store', NEW.store)
                || v_row
                || jsonb_build_object('revoked_quantity', NEW.quantity,
                                      'reason', CASE WHEN NEW.replaced THEN 'provisional_replaced'
                                                     WHEN NEW.state = 'cancelled' THEN 'provisional_cancelled'
                                                     ELSE 'provisional_refuted' END,
                                      'revoked_at', coalesce(NEW.resolved_at, now()),
                                      'revocation_percentage', NULL,
                                      'granted', NEW.granted_at IS NOT NULL));
    END IF;
    PERFORM pg_notify('iap_webhooks', '');
    RETURN NULL;
END $$;

-- payment.unclaimed for a payment nobody ordered (the purchase token, a credential, is left out). `order_id` and
-- `user_id` are the order and player whose input carried it, NULL when a store reported it on its own.
CREATE OR REPLACE FUNCTION iap.webhook_payment_unclaimed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp SET TimeZone = 'UTC' AS $$
BEGIN
    IF NOT coalesce((SELECT configured FROM iap.webhook_endpoint WHERE singleton), false) THEN
        RETURN NULL;
    END IF;
    IF NEW.order_id IS NOT NULL THEN
        PERFORM 1 FROM iap.orders WHERE order_id = NEW.order_id FOR NO KEY UPDATE;
    END IF;
    INSERT INTO iap.webhook_events (type, order_id, user_id, payload)
    VALUES ('payment.unclaimed', NEW.order_id, NEW.user_id,
            jsonb_build_object('store', NEW.store, 'transaction_id', NEW.transaction_id,
                               'original_transaction_id', NEW.original_transaction_id,
                               'product_id', NEW.product_id, 'quantity', NEW.quantity,
                               'purchase_date', NEW.purchase_date, 'environment', NEW.environment,
                               'user_id', NEW.user_id, 'order_id', NEW.order_id,
                               'app_account_token', NEW.app_account_token));
    PERFORM pg_notify('iap_webhooks', '');
    RETURN NULL;
END $$;

-- order.failed for an order that ended `invalid` (the store refused it) or `failed` (it could not be verified).
CREATE OR REPLACE FUNCTION iap.webhook_order_failed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp SET TimeZone = 'UTC' AS $$
BEGIN
    IF NOT coalesce((SELECT configured FROM iap.webhook_endpoint WHERE singleton), false) THEN
        RETURN NULL;
    END IF;
    -- The order's row is locked already: its update fired this.
    INSERT INTO iap.webhook_events (type, order_id, user_id, payload)
    VALUES ('order.failed', NEW.order_id, NEW.user_id,
            jsonb_build_object('order_id', NEW.order_id, 'user_id', NEW.user_id, 'product_id', NEW.product_id,
                               'quantity', NEW.quantity, 'outcome', NEW.outcome,
                               'delivered_quantity', NEW.delivered_quantity));
    PERFORM pg_notify('iap_webhooks', '');
    RETURN NULL;
END $$;

-- The subscription events, each with the subscription's row: subscription.started (first recorded),
-- subscription.renewed (a later period: its expiry moved on while it stays or becomes active), subscription.expired,
-- subscription.revoked, subscription.transferred (another player has it now), and subscription.state_changed for
-- any other change of state or of auto-renew (grace, billing retry, hold, pause, recovered, renewal turned off or
-- on). Its `order_id` is the checkout that started it, so that the senders keep one subscription's events in order.
CREATE OR REPLACE FUNCTION iap.webhook_subscription_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp SET TimeZone = 'UTC' AS $$
DECLARE
    v_type text;
BEGIN
    IF NOT coalesce((SELECT configured FROM iap.webhook_endpoint WHERE singleton), false) THEN
        RETURN NULL;
    END IF;
    v_type := CASE
        WHEN TG_OP = 'INSERT' THEN 'subscription.started'
        WHEN OLD.user_id <> NEW.user_id THEN 'subscription.transferred'
        WHEN NEW.state = 'expired' AND OLD.state <> 'expired' THEN 'subscription.expired'
        WHEN NEW.state = 'revoked' AND OLD.state <> 'revoked' THEN 'subscription.revoked'
        WHEN NEW.state = 'active' AND NEW.expires_at > OLD.expires_at THEN 'subscription.renewed'
        WHEN OLD.state <> NEW.state OR OLD.auto_renew <> NEW.auto_renew THEN 'subscription.state_changed'
    END;
    IF v_type IS NULL THEN
        RETURN NULL;
    END IF;
    -- The checkout's row lock, as every other event of that order takes it (a renewal's settle holds its own
    -- renewal order's, not this one's).
    PERFORM 1 FROM iap.orders WHERE order_id = NEW.order_id FOR NO KEY UPDATE;
    INSERT INTO iap.webhook_events (type, order_id, user_id, payload)
    VALUES (v_type, NEW.order_id, NEW.user_id,
            jsonb_build_object('subscription_id', NEW.subscription_id, 'store', NEW.store, 'user_id', NEW.user_id,
                               'order_id', NEW.order_id, 'product_id', NEW.product_id, 'renews_to', NEW.renews_to,
                               'group_id', NEW.group_id, 'state', NEW.state, 'entitled_until', NEW.entitled_until,
                               'expires_at', NEW.expires_at, 'auto_renew', NEW.auto_renew,
                               'environment', NEW.environment, 'ownership', NEW.ownership,
                               'latest_transaction_id', NEW.latest_transaction_id, 'store_time', NEW.store_time,
                               'previous_state', CASE WHEN TG_OP = 'UPDATE' THEN OLD.state END,
                               'previous_user_id', CASE WHEN TG_OP = 'UPDATE' AND OLD.user_id <> NEW.user_id
                                                        THEN OLD.user_id END));
    PERFORM pg_notify('iap_webhooks', '');
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER deliveries_webhook_added AFTER INSERT ON iap.deliveries
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION iap.webhook_deliveries_added();
CREATE OR REPLACE TRIGGER deliveries_webhook_revocation
    AFTER UPDATE OF revoked_at, revoked_quantity, revocation_percentage ON iap.deliveries
    FOR EACH ROW
    WHEN ((OLD.revoked_at IS NULL) <> (NEW.revoked_at IS NULL)
          OR (OLD.revoked_at IS NULL AND NEW.revoked_at IS NULL
              AND (NEW.revoked_quantity > OLD.revoked_quantity
                   OR coalesce(NEW.revocation_percentage, 0) > coalesce(OLD.revocation_percentage, 0)
                   -- A reversal lifting a share.
                   OR ((OLD.revoked_quantity > 0 OR OLD.revocation_percentage IS NOT NULL)
                       AND NEW.revoked_quantity = 0 AND NEW.revocation_percentage IS NULL))))
    EXECUTE FUNCTION iap.webhook_delivery_revocation();
CREATE OR REPLACE TRIGGER provisional_grants_webhook AFTER INSERT OR UPDATE ON iap.provisional_grants
    FOR EACH ROW EXECUTE FUNCTION iap.webhook_provisional_grant();
CREATE OR REPLACE TRIGGER unclaimed_payments_webhook AFTER INSERT ON iap.unclaimed_payments
    FOR EACH ROW EXECUTE FUNCTION iap.webhook_payment_unclaimed();
-- Each verification that ends an order writes its outcome and outcome_at: an order retried (`receiptd retry`) that
-- fails again has ended again, and is told again; an update that rewrites neither is no ending.
CREATE OR REPLACE TRIGGER orders_webhook_failed AFTER UPDATE OF outcome, outcome_at ON iap.orders
    FOR EACH ROW
    WHEN (NEW.outcome IN ('invalid', 'failed')
          AND (OLD.outcome IS DISTINCT FROM NEW.outcome OR OLD.outcome_at IS DISTINCT FROM NEW.outcome_at))
    EXECUTE FUNCTION iap.webhook_order_failed();

CREATE OR REPLACE TRIGGER subscriptions_webhook
    AFTER INSERT OR UPDATE OF user_id, state, expires_at, auto_renew ON iap.subscriptions
    FOR EACH ROW EXECUTE FUNCTION iap.webhook_subscription_changed();

-- Whether changes write events: each daemon at start, true when it runs with RECEIPTD_WEBHOOK_URL.
CREATE OR REPLACE FUNCTION iap.set_webhook_endpoint(configured boolean) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    UPDATE iap.webhook_endpoint SET configured = set_webhook_endpoint.configured, updated_at = now()
    WHERE singleton AND configured IS DISTINCT FROM set_webhook_endpoint.configured;
$$;

-- The endpoint answered 410 Gone to `event_id`: nothing more is sent until `receiptd webhooks enable`. True when
-- this call disabled it (it was enabled).
CREATE OR REPLACE FUNCTION iap.disable_webhooks(event_id text) RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    UPDATE iap.webhook_endpoint SET disabled_at = now(), disabled_event = disable_webhooks.event_id,
                                    updated_at = now()
    WHERE singleton AND disabled_at IS NULL
    RETURNING true;
$$;

-- An operator enables the endpoint again (`receiptd webhooks enable`): every pending event is due now. Returns
-- how many events are pending.
CREATE OR REPLACE FUNCTION iap.enable_webhooks(actor text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_pending bigint;
BEGIN
    UPDATE iap.webhook_endpoint SET disabled_at = NULL, disabled_event = NULL, enabled_at = now(),
                                    enabled_by = enable_webhooks.actor, updated_at = now()
    WHERE singleton;
    UPDATE iap.webhook_events SET next_attempt_at = now()
    WHERE state = 'pending' AND next_attempt_at > now();
    SELECT count(*) INTO v_pending FROM iap.webhook_events WHERE state = 'pending';
    PERFORM pg_notify('iap_webhooks', '');
    PERFORM iap.record_operator_action('enable_webhooks', 'webhook endpoint', 'enabled, ' || v_pending || ' pending',
                                       NULL);
    RETURN v_pending;
END $$;

-- An operator sends events again (`receiptd webhooks replay`): pending and due now, attempts counted afresh,
-- the same id. Returns the ids found.
CREATE OR REPLACE FUNCTION iap.replay_webhook_events(ids text[]) RETURNS SETOF text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_event record;
BEGIN
    FOR v_event IN
        UPDATE iap.webhook_events w
        SET state = 'pending', next_attempt_at = now(), delivered_at = NULL, attempts = 0,
            locked_by = NULL, locked_until = NULL
        WHERE w.id = ANY (replay_webhook_events.ids)
        RETURNING w.id, w.order_id
    LOOP
        PERFORM iap.record_operator_action('replay_webhook', v_event.id, 'pending, due now', v_event.order_id);
        RETURN NEXT v_event.id;
    END LOOP;
    PERFORM pg_notify('iap_webhooks', '');
END $$;
