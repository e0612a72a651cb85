-- The game server's calls after its enqueues: its checkout, the deliveries it owes the player, its
-- confirmation that it granted them, and closing an order nobody paid. They run as their owner.

-- The game server's checkout, before the client pays: the order and its checkout time, which bounds the
-- purchases that may pay it. The same call again returns the same time; NULL for an order first seen with
-- its receipt (it has no checkout, and no such bound). `app_account_token` (the UUID the app passes to StoreKit)
-- and `account_id` (Google's obfuscated account id) bind the order at checkout, so that a purchase a store
-- reports itself finds it; NULL means not given, and a different one for an existing order raises 22023.
CREATE OR REPLACE FUNCTION iap.create_order(
    order_id text, user_id text, product_id text, quantity int DEFAULT 1, app_account_token uuid DEFAULT NULL,
    account_id text DEFAULT NULL
) RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
DECLARE
    v_order iap.orders%ROWTYPE;
BEGIN
    PERFORM iap.check_identifier('create_order', 'order_id', create_order.order_id);
    PERFORM iap.check_identifier('create_order', 'user_id', create_order.user_id);
    PERFORM iap.check_identifier('create_order', 'product_id', create_order.product_id);
    IF create_order.quantity IS NULL OR create_order.quantity < 1 THEN
        RAISE EXCEPTION 'create_order: quantity must be at least 1, got %', create_order.quantity
            USING ERRCODE = '22023';
    END IF;
    IF create_order.account_id IS NOT NULL THEN
        PERFORM iap.check_identifier('create_order', 'account_id', create_order.account_id);
    END IF;
    INSERT INTO iap.orders (order_id, user_id, product_id, quantity, checkout_at, app_account_token, account_id)
    VALUES (create_order.order_id, create_order.user_id, create_order.product_id, create_order.quantity, now(),
            create_order.app_account_token, create_order.account_id)
    ON CONFLICT (order_id) DO NOTHING
    RETURNING * INTO v_order;
    IF FOUND THEN
        RETURN v_order.checkout_at;
    END IF;
    SELECT * INTO v_order FROM iap.orders WHERE order_id = create_order.order_id FOR UPDATE;
    IF v_order.user_id <> create_order.user_id OR v_order.product_id <> create_order.product_id
       OR v_order.quantity <> create_order.quantity THEN
        RAISE EXCEPTION 'create_order: order % exists for user %, product %, quantity %', create_order.order_id,
            v_order.user_id, v_order.product_id, v_order.quantity USING ERRCODE = '22023';
    END IF;
    IF create_order.app_account_token IS NOT NULL THEN
        IF v_order.app_account_token IS NULL THEN
            UPDATE iap.orders SET app_account_token = create_order.app_account_token
            WHERE order_id = create_order.order_id;
        ELSIF v_order.app_account_token <> create_order.app_account_token THEN
            RAISE EXCEPTION 'create_order: order % is bound to app_account_token %, not %', create_order.order_id,
                v_order.app_account_token, create_order.app_account_token USING ERRCODE = '22023';
        END IF;
    END IF;
    IF create_order.account_id IS NOT NULL THEN
        IF v_order.account_id IS NULL THEN
            UPDATE iap.orders SET account_id = create_order.account_id WHERE order_id = create_order.order_id;
        ELSIF v_order.account_id <> create_order.account_id THEN
            RAISE EXCEPTION 'create_order: order % is bound to account_id %, not %', create_order.order_id,
                v_order.account_id, create_order.account_id USING ERRCODE = '22023';
        END IF;
    END IF;
    RETURN v_order.checkout_at;
END $$;

-- What the game server asks for at the player's login: delivered goods it has not confirmed granting, oldest first.
-- A provisional grant (iap.provisional_grants, a trusted player's order granted while its store fails) is owed
-- as the row `provisional:<order_id>` with `provisional` true, until verification confirms it (the real ledger
-- rows take its place) or refutes it (iap.owed_revocations hands it back). A subscription's period names its
-- subscription and the period it pays (null on every other row). A granted row whose units the game took back for a
-- refund of a share that Apple then reversed is owed again for those units only: `reinstated_quantity` (NULL on a
-- row owed whole: grant `quantity`). PL/pgSQL, so that a connection keeps the body's plan, as iap.entitlements does.
CREATE OR REPLACE FUNCTION iap.owed_deliveries(user_id text)
RETURNS TABLE (transaction_id text, order_id text, product_id text, quantity int, purchase_date timestamptz,
               delivered_at timestamptz, provisional boolean, subscription_id text, period_start timestamptz,
               period_end timestamptz, reinstated_quantity int)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT o.transaction_id, o.order_id, o.product_id, o.quantity, o.purchase_date, o.delivered_at, o.provisional,
           o.subscription_id, o.period_start, o.period_end, o.reinstated_quantity
    FROM (
        SELECT d.transaction_id, d.order_id, d.product_id, d.quantity, d.purchase_date, d.delivered_at,
               false AS provisional, d.subscription_id, d.period_start, d.period_end, NULL::int AS reinstated_quantity
        FROM iap.deliveries d
        -- A bare user_id would name the column. A revoked purchase (refunded or voided) is never owed.
        WHERE d.user_id = owed_deliveries.user_id AND d.granted_at IS NULL AND d.revoked_at IS NULL
        UNION ALL
        SELECT d.transaction_id, d.order_id, d.product_id, d.quantity, d.purchase_date, d.delivered_at, false,
               d.subscription_id, d.period_start, d.period_end, d.reinstated_quantity
        FROM iap.deliveries d
        WHERE d.user_id = owed_deliveries.user_id AND d.reinstated_quantity > 0 AND d.granted_at IS NOT NULL
          AND d.revoked_at IS NULL
        UNION ALL
        SELECT 'provisional:' || g.order_id, g.order_id, g.product_id, g.quantity, NULL, g.created_at, true,
               NULL, NULL, NULL, NULL
        FROM iap.provisional_grants g
        WHERE g.user_id = owed_deliveries.user_id AND g.state = 'unconfirmed' AND g.granted_at IS NULL
    ) o
    ORDER BY o.delivered_at, o.transaction_id;
END $$;

-- What the player may use now, for the game to check at login and on notification: each subscription they are
-- entitled to (active or in its grace period, before entitled_until) and each non-consumable they own (delivered,
-- not revoked; family-shared ones too), one row per product and subscription. PL/pgSQL, so that a connection plans
-- the body once and keeps the plan: a SQL function that is not inlined (SECURITY DEFINER never is) plans its body
-- again on every call, which cost more than reading the player's rows (issue #48).
CREATE OR REPLACE FUNCTION iap.entitlements(user_id text)
RETURNS TABLE (store text, product_id text, kind text, subscription_id text, state text,
               entitled_until timestamptz, auto_renew boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    RETURN QUERY
    SELECT s.store, s.product_id, 'auto_renewable'::text, s.subscription_id, s.state, s.entitled_until, s.auto_renew
    FROM iap.subscriptions s
    WHERE s.user_id = entitlements.user_id AND s.state IN ('active', 'grace_period') AND now() < s.entitled_until
    UNION ALL
    SELECT DISTINCT d.store, d.product_id, 'non_consumable', NULL::text, NULL::text, NULL::timestamptz,
           NULL::boolean
    FROM iap.deliveries d
    WHERE d.user_id = entitlements.user_id AND d.product_kind = 'non_consumable' AND d.revoked_at IS NULL
    ORDER BY 1, 2, 4;
END $$;

-- The game confirms it granted the order's delivered goods: returns how many ledger rows it newly marked
-- (0 the second time), a provisional grant counting as one, and so a row owed again for reinstated units. It
-- marks every delivered row of the order, also one delivered after the game read owed_deliveries, which the game
-- never saw: mark_granted(order_id, transaction_ids) marks only what was granted.
CREATE OR REPLACE FUNCTION iap.mark_granted(order_id text) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
DECLARE
    v_order  iap.orders%ROWTYPE;
    v_marked int;
BEGIN
    -- The order row lock orders this after any settle delivering to the order.
    SELECT * INTO v_order FROM iap.orders WHERE order_id = mark_granted.order_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'mark_granted: no order %', mark_granted.order_id USING ERRCODE = 'P0002';
    END IF;
    UPDATE iap.deliveries SET granted_at = coalesce(granted_at, now()), reinstated_quantity = 0
    WHERE order_id = mark_granted.order_id AND (granted_at IS NULL OR reinstated_quantity > 0);
    GET DIAGNOSTICS v_marked = ROW_COUNT;
    UPDATE iap.provisional_grants SET granted_at = now()
    WHERE order_id = mark_granted.order_id AND state = 'unconfirmed' AND granted_at IS NULL;
    IF FOUND THEN
        v_marked := v_marked + 1;
    END IF;
    IF (v_order.delivered_quantity > 0 OR EXISTS (
            SELECT 1 FROM iap.provisional_grants g WHERE g.order_id = mark_granted.order_id AND g.state = 'unconfirmed'))
       AND v_order.status <> 'finished' THEN
        UPDATE iap.orders SET status = 'finished' WHERE order_id = mark_granted.order_id;
    END IF;
    RETURN v_marked;
END $$;

-- The game confirms it granted exactly these ledger rows of the order (those owed_deliveries returned):
-- returns how many it newly marked. Ids not delivered to the order mark nothing. The order is finished only
-- when nothing delivered to it is left ungranted or owed again (a revoked row is never owed, so it does not count).
-- No default on the array: a one-argument call is the form above.
CREATE OR REPLACE FUNCTION iap.mark_granted(order_id text, transaction_ids text[]) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
DECLARE
    v_order  iap.orders%ROWTYPE;
    v_marked int;
BEGIN
    IF mark_granted.transaction_ids IS NULL THEN
        RAISE EXCEPTION 'mark_granted: transaction_ids must not be null' USING ERRCODE = '22023';
    END IF;
    -- The order row lock orders this after any settle delivering to the order.
    SELECT * INTO v_order FROM iap.orders WHERE order_id = mark_granted.order_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'mark_granted: no order %', mark_granted.order_id USING ERRCODE = 'P0002';
    END IF;
    UPDATE iap.deliveries SET granted_at = coalesce(granted_at, now()), reinstated_quantity = 0
    WHERE order_id = mark_granted.order_id AND (granted_at IS NULL OR reinstated_quantity > 0)
      AND transaction_id = ANY (mark_granted.transaction_ids);
    GET DIAGNOSTICS v_marked = ROW_COUNT;
    -- A provisional grant is granted under its own id, 'provisional:<order_id>'.
    UPDATE iap.provisional_grants SET granted_at = now()
    WHERE order_id = mark_granted.order_id AND state = 'unconfirmed' AND granted_at IS NULL
      AND 'provisional:' || mark_granted.order_id = ANY (mark_granted.transaction_ids);
    IF FOUND THEN
        v_marked := v_marked + 1;
    END IF;
    IF (v_order.delivered_quantity > 0 OR EXISTS (
            SELECT 1 FROM iap.provisional_grants g WHERE g.order_id = mark_granted.order_id AND g.state = 'unconfirmed'))
       AND v_order.status <> 'finished' AND NOT EXISTS (
        SELECT 1 FROM iap.deliveries
        WHERE order_id = mark_granted.order_id AND (granted_at IS NULL OR reinstated_quantity > 0)
          AND revoked_at IS NULL
    ) AND NOT EXISTS (
        SELECT 1 FROM iap.provisional_grants g
        WHERE g.order_id = mark_granted.order_id AND g.state = 'unconfirmed' AND g.granted_at IS NULL
    ) THEN
        UPDATE iap.orders SET status = 'finished' WHERE order_id = mark_granted.order_id;
    END IF;
    RETURN v_marked;
END $$;

-- The game closes an order nobody paid. An active job is left alone: it may be verifying a receipt the client
-- already sent (Apple answering 503, a retry due), and a payment it finds, like one that arrives later, is
-- delivered (the money was taken) and the order becomes verified.
-- A provisional grant of the order is handed back (`provisional_cancelled`, iap.cancel_provisional_grant): the
-- game's own decision costs the player no trust, and the job's finding, if it pays, is owed as for any close.
CREATE OR REPLACE FUNCTION iap.close_order(order_id text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
DECLARE
    v_order iap.orders%ROWTYPE;
BEGIN
    SELECT * INTO v_order FROM iap.orders WHERE order_id = close_order.order_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'close_order: no order %', close_order.order_id USING ERRCODE = 'P0002';
    END IF;
    IF v_order.delivered_quantity > 0 THEN
        RAISE EXCEPTION 'close_order: order % has deliveries; grant them instead', close_order.order_id
            USING ERRCODE = '55000';
    END IF;
    PERFORM iap.cancel_provisional_grant(close_order.order_id);
    UPDATE iap.orders SET status = 'closed' WHERE order_id = close_order.order_id;
END $$;

-- The game's catalogue: declares what kind of product `product_id` is in `store`. Declaring it again changes the
-- kind; a product the App Store named first (source 'store') becomes the game's. Google finalizes a purchase by
-- its product's kind (a consumable is consumed, anything else acknowledged); where Apple's signed transactions
-- state a type that contradicts the declared kind, both are kept, Apple's is used, and `receiptd status` lists it.
-- A store other than apple or google, or a kind the store does not sell, raises 22023. An auto-renewable product
-- declared with periods => false is only checked as an entitlement: its periods are recorded granted, never owed.
CREATE OR REPLACE FUNCTION iap.define_product(store text, product_id text, kind text, periods boolean DEFAULT true)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
#variable_conflict use_column
BEGIN
    IF define_product.store IS NULL OR define_product.store NOT IN ('apple', 'google') THEN
        RAISE EXCEPTION 'define_product: store must be apple or google, got %', coalesce(define_product.store, 'NULL')
            USING ERRCODE = '22023';
    END IF;
    PERFORM iap.check_identifier('define_product', 'product_id', define_product.product_id);
    IF define_product.kind IS NULL
       OR define_product.kind NOT IN ('consumable', 'non_consumable', 'auto_renewable', 'non_renewing') THEN
        RAISE EXCEPTION 'define_product: kind must be consumable, non_consumable, auto_renewable or non_renewing, got %',
            coalesce(define_product.kind, 'NULL') USING ERRCODE = '22023';
    END IF;
    IF define_product.store = 'google' AND define_product.kind = 'non_renewing' THEN
        RAISE EXCEPTION 'define_product: Google Play sells no non_renewing products (%)', define_product.product_id
            USING ERRCODE = '22023';
    END IF;
    IF define_product.periods IS NULL OR (NOT define_product.periods AND define_product.kind <> 'auto_renewable') THEN
        RAISE EXCEPTION 'define_product: periods => false is for auto_renewable products only (%)',
            define_product.product_id USING ERRCODE = '22023';
    END IF;
    INSERT INTO iap.products (store, product_id, kind, source, periods)
    VALUES (define_product.store, define_product.product_id, define_product.kind, 'game', define_product.periods)
    ON CONFLICT (store, product_id) DO UPDATE
    SET kind = excluded.kind, source = 'game', periods = excluded.periods, updated_at = now();
END $$;
