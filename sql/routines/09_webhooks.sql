-- Webhooks: the events the game server is told about over HTTPS (Standard Webhooks), written to
-- iap.webhook_events by triggers on the tables each change touches, so that every path making the change (a
-- settle, a store notification, a voided-purchases poll, an operator's assignment, the trust rules) writes its
-- event in its own transaction, and a change rolled back leaves none. Nothing is written unless a daemon runs
-- with RECEIPTD_WEBHOOK_URL (iap.webhook_endpoint.configured). Each event wakes the senders (NOTIFY
-- iap_webhooks, a hint: they poll too).
-- The trigger functions run as the role making the change (the daemon's, or a function's owner), which may
-- insert events and read the endpoint row, and they call no other function of ours.
--
-- Events, and their `data`:
-- - order.verified: units delivered to an order (the ledger rows one statement added), or a provisional grant
--   (`provisional` true, the one row `provisional:<order_id>`);
-- - delivery.revoked: a ledger row revoked (refund, revoke, void; `revoked_quantity` of `quantity` for a partial
--   refund), or a provisional grant refuted or exchanged (`provisional_refuted`, `provisional_replaced`);
-- - delivery.reinstated: a revocation lifted;
-- - payment.unclaimed: a payment no order claimed was recorded;
-- - order.failed: an order ended `invalid` or `failed`.

-- order.verified for the ledger rows an INSERT added, one event per order.
CREATE OR REPLACE FUNCTION iap.webhook_deliveries_added() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp SET jit = off AS $$
BEGIN
    IF NOT coalesce((SELECT configured FROM iap.webhook_endpoint), false) THEN
        RETURN NULL;
    END IF;
    INSERT INTO iap.webhook_events (id, type, order_id, user_id, payload)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), 'order.verified', a.order_id, a.user_id,
           jsonb_build_object('order_id', a.order_id, 'user_id', a.user_id, 'store', a.store,
                              'provisional', false, 'deliveries', a.deliveries)
    FROM (
        SELECT n.order_id, min(n.user_id) AS user_id, min(n.store) AS store,
               jsonb_agg(jsonb_build_object('transaction_id', n.transaction_id, 'product_id', n.product_id,
                                            'quantity', n.quantity, 'purchase_date', n.purchase_date,
                                            'environment', n.environment)
                         ORDER BY n.transaction_id) AS deliveries
        FROM added n
        GROUP BY n.order_id
        ORDER BY n.order_id
    ) a;
    IF FOUND THEN
        PERFORM pg_notify('iap_webhooks', '');
    END IF;
    RETURN NULL;
END $$;

-- delivery.revoked and delivery.reinstated for one ledger row whose revocation changed.
CREATE OR REPLACE FUNCTION iap.webhook_delivery_revocation() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_type text;
BEGIN
    IF NOT coalesce((SELECT configured FROM iap.webhook_endpoint), false) THEN
        RETURN NULL;
    END IF;
    IF NEW.revoked_at IS NULL AND OLD.revoked_at IS NOT NULL THEN
        v_type := 'delivery.reinstated';
    ELSIF NEW.revoked_at IS NOT NULL
          AND (OLD.revoked_at IS NULL OR NEW.revoked_quantity > OLD.revoked_quantity) THEN
        v_type := 'delivery.revoked';
    ELSE
        RETURN NULL;
    END IF;
    INSERT INTO iap.webhook_events (id, type, order_id, user_id, payload)
    VALUES ('msg_' || replace(gen_random_uuid()::text, '-', ''), v_type, NEW.order_id, NEW.user_id,
            jsonb_build_object('order_id', NEW.order_id, 'user_id', NEW.user_id, 'store', NEW.store,
                               'transaction_id', NEW.transaction_id, 'product_id', NEW.product_id,
                               'quantity', NEW.quantity)
            || CASE WHEN v_type = 'delivery.revoked' THEN
                   jsonb_build_object('revoked_quantity',
                                      CASE WHEN NEW.revoked_quantity > 0 THEN NEW.revoked_quantity
                                           ELSE NEW.quantity END,
                                      'reason', NEW.revocation_reason, 'revoked_at', NEW.revoked_at,
                                      'granted', NEW.granted_at IS NOT NULL)
               ELSE '{}'::jsonb END);
    PERFORM pg_notify('iap_webhooks', '');
    RETURN NULL;
END $$;

-- order.verified for a new provisional grant; delivery.revoked for one refuted or exchanged.
CREATE OR REPLACE FUNCTION iap.webhook_provisional_grant() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_row jsonb;
BEGIN
    IF NOT coalesce((SELECT configured FROM iap.webhook_endpoint), false) THEN
        RETURN NULL;
    END IF;
    v_row := jsonb_build_object('transaction_id', 'provisional:' || NEW.order_id, 'product_id', NEW.product_id,
                                'quantity', NEW.quantity);
    IF TG_OP = 'INSERT' THEN
        INSERT INTO iap.webhook_events (id, type, order_id, user_id, payload)
        VALUES ('msg_' || replace(gen_random_uuid()::text, '-', ''), 'order.verified', NEW.order_id, NEW.user_id,
                jsonb_build_object('order_id', NEW.order_id, 'user_id', NEW.user_id, 'store', NEW.store,
                                   'provisional', true, 'deliveries', jsonb_build_array(v_row)));
    ELSIF (NEW.state = 'refuted' AND OLD.state <> 'refuted') OR (NEW.replaced AND NOT OLD.replaced) THEN
        INSERT INTO iap.webhook_events (id, type, order_id, user_id, payload)
        VALUES ('msg_' || replace(gen_random_uuid()::text, '-', ''), 'delivery.revoked', NEW.order_id,
                NEW.user_id,
                jsonb_build_object('order_id', NEW.order_id, 'user_id', NEW.user_id, 'store', NEW.store)
                || v_row
                || jsonb_build_object('revoked_quantity', NEW.quantity,
                                      'reason', CASE WHEN NEW.replaced THEN 'provisional_replaced'
                                                     ELSE 'provisional_refuted' END,
                                      'revoked_at', now(), 'granted', NEW.granted_at IS NOT NULL));
    ELSE
        RETURN NULL;
    END IF;
    PERFORM pg_notify('iap_webhooks', '');
    RETURN NULL;
END $$;

-- payment.unclaimed for a payment nobody ordered (the purchase token, a credential, is left out).
CREATE OR REPLACE FUNCTION iap.webhook_payment_unclaimed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    IF NOT coalesce((SELECT configured FROM iap.webhook_endpoint), false) THEN
        RETURN NULL;
    END IF;
    INSERT INTO iap.webhook_events (id, type, order_id, user_id, payload)
    VALUES ('msg_' || replace(gen_random_uuid()::text, '-', ''), 'payment.unclaimed', NEW.order_id, NEW.user_id,
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
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    IF NOT coalesce((SELECT configured FROM iap.webhook_endpoint), false) THEN
        RETURN NULL;
    END IF;
    INSERT INTO iap.webhook_events (id, type, order_id, user_id, payload)
    VALUES ('msg_' || replace(gen_random_uuid()::text, '-', ''), 'order.failed', NEW.order_id, NEW.user_id,
            jsonb_build_object('order_id', NEW.order_id, 'user_id', NEW.user_id, 'product_id', NEW.product_id,
                               'quantity', NEW.quantity, 'outcome', NEW.outcome,
                               'delivered_quantity', NEW.delivered_quantity));
    PERFORM pg_notify('iap_webhooks', '');
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS deliveries_webhook_added ON iap.deliveries;
CREATE TRIGGER deliveries_webhook_added AFTER INSERT ON iap.deliveries
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION iap.webhook_deliveries_added();
DROP TRIGGER IF EXISTS deliveries_webhook_revocation ON iap.deliveries;
CREATE TRIGGER deliveries_webhook_revocation AFTER UPDATE OF revoked_at, revoked_quantity ON iap.deliveries
    FOR EACH ROW
    WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.revoked_quantity IS DISTINCT FROM NEW.revoked_quantity)
    EXECUTE FUNCTION iap.webhook_delivery_revocation();
DROP TRIGGER IF EXISTS provisional_grants_webhook ON iap.provisional_grants;
CREATE TRIGGER provisional_grants_webhook AFTER INSERT OR UPDATE ON iap.provisional_grants
    FOR EACH ROW EXECUTE FUNCTION iap.webhook_provisional_grant();
DROP TRIGGER IF EXISTS unclaimed_payments_webhook ON iap.unclaimed_payments;
CREATE TRIGGER unclaimed_payments_webhook AFTER INSERT ON iap.unclaimed_payments
    FOR EACH ROW EXECUTE FUNCTION iap.webhook_payment_unclaimed();
DROP TRIGGER IF EXISTS orders_webhook_failed ON iap.orders;
CREATE TRIGGER orders_webhook_failed AFTER UPDATE OF outcome ON iap.orders
    FOR EACH ROW
    WHEN (NEW.outcome IN ('invalid', 'failed') AND OLD.outcome IS DISTINCT FROM NEW.outcome)
    EXECUTE FUNCTION iap.webhook_order_failed();

-- Whether changes write events: each daemon at start, true when it runs with RECEIPTD_WEBHOOK_URL.
CREATE OR REPLACE FUNCTION iap.set_webhook_endpoint(configured boolean) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    UPDATE iap.webhook_endpoint SET configured = set_webhook_endpoint.configured, updated_at = now()
    WHERE configured IS DISTINCT FROM set_webhook_endpoint.configured;
$$;

-- The endpoint answered 410 Gone to `event_id`: nothing more is sent until `receiptd webhooks enable`. True when
-- this call disabled it (it was enabled).
CREATE OR REPLACE FUNCTION iap.disable_webhooks(event_id text) RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    UPDATE iap.webhook_endpoint SET disabled_at = now(), disabled_event = disable_webhooks.event_id,
                                    updated_at = now()
    WHERE disabled_at IS NULL
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
                                    enabled_by = enable_webhooks.actor, updated_at = now();
    UPDATE iap.webhook_events SET next_attempt_at = now()
    WHERE state = 'pending' AND next_attempt_at > now();
    SELECT count(*) INTO v_pending FROM iap.webhook_events WHERE state = 'pending';
    PERFORM pg_notify('iap_webhooks', '');
    RETURN v_pending;
END $$;

-- An operator sends events again (`receiptd webhooks replay`): pending and due now, attempts counted afresh,
-- the same id. Returns the ids found.
CREATE OR REPLACE FUNCTION iap.replay_webhook_events(ids text[]) RETURNS SETOF text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    RETURN QUERY
    UPDATE iap.webhook_events w
    SET state = 'pending', next_attempt_at = now(), delivered_at = NULL, attempts = 0,
        locked_by = NULL, locked_until = NULL
    WHERE w.id = ANY (replay_webhook_events.ids)
    RETURNING w.id;
    PERFORM pg_notify('iap_webhooks', '');
END $$;
