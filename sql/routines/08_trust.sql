-- Seed 004's trust levels and the provisional grants they allow. The rules live here, in triggers on the tables
-- every verification writes, so that each path that ends an order (a settle, a rejection, the last failed
-- attempt, an operator's assignment) applies them in its own transaction:
-- - a player loses a store's trust at once when an order of theirs in it ends `invalid`, when an input of theirs
--   carries a purchase first delivered to another user (iap.foreign_transactions), when an input that is by
--   itself one transaction is already in the ledger for another order (a replay; the settle reports it), or
--   when a provisional grant of theirs is refuted;
-- - an untrusted player regains it after trust_policy.restore_after orders in a row end paid; an order that
--   ends `unmatched` or `no_in_app` breaks the row, one that `failed` (the store could not be asked) does not;
-- - a provisional grant is confirmed when units are delivered to its order, and refuted when the order ends
--   unpaid (`invalid`, `unmatched`, `no_in_app`, or `failed` after the last attempt). A grant the game took is
--   confirmed by the same units (the real rows are then granted too) or exchanged for the real rows (owed, and
--   the grant handed back as `provisional_replaced`) when the payment is not the units granted;
-- - a provisional grant whose verification is cancelled (an operator cancels its order's job) or whose order the
--   game closes is handed back as `provisional_cancelled` (iap.cancel_provisional_grant), and the player keeps
--   their trust: neither is the player's doing. After a close the job goes on, and a payment it finds is owed.

-- Two rules every trust function reads, written once. IMMUTABLE SQL without settings, reading no table: the planner
-- inlines them into each query calling them (no function call on the settle's path), so they run with the caller's
-- search_path, which starts with pg_catalog. Inlining needs the caller's right to execute them: the daemon's role
-- has it (10_roles_and_grants.sql), since apply_trust_rules and distrust_foreign_sender run as the daemon.

-- The store a job of `kind` verifies in: Google for a purchase token, Apple for a receipt or a transaction.
CREATE OR REPLACE FUNCTION iap.job_store(kind text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE kind WHEN 'google_purchase' THEN 'google' ELSE 'apple' END
$$;

-- A player's level in `store`: the recorded one (iap.user_trust.trusted), else the store's initial level
-- (iap.trust_policy).
CREATE OR REPLACE FUNCTION iap.trust_level(recorded boolean, store text, initial_apple boolean, initial_google boolean)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(recorded, CASE store WHEN 'google' THEN initial_google ELSE initial_apple END)
$$;

-- The player loses the store's trust now, for `reason` (invalid, foreign_transaction, replay,
-- provisional_refuted) found in `order_id`: untrusted, and the streak starts again from nothing.
CREATE OR REPLACE FUNCTION iap.lose_trust(user_id text, store text, reason text, order_id text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
BEGIN
    INSERT INTO iap.user_trust (user_id, store, trusted, streak, changed_at, reason, order_id)
    VALUES (lose_trust.user_id, lose_trust.store, false, 0, now(), lose_trust.reason, lose_trust.order_id)
    ON CONFLICT (user_id, store) DO UPDATE
    SET trusted = false, streak = 0, changed_at = now(), reason = excluded.reason, order_id = excluded.order_id;
END $$;

-- Hands back the order's unconfirmed provisional grant, which its verification will no longer end: an operator
-- cancelled the order's job (iap.cancel_order), or the game closed the order (iap.close_order). The grant is
-- `cancelled`, handed back like a refuted one (owed_revocations names it `provisional_cancelled`; NOTIFY
-- iap_revoked; webhook delivery.revoked), no longer counts against the limit, and costs the player no trust. A
-- grant the game never took leaves the order pending again, as it was before the grant. The caller holds the
-- order's row lock. True when there was a grant to hand back.
CREATE OR REPLACE FUNCTION iap.cancel_provisional_grant(order_id text) RETURNS boolean
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
DECLARE
    v_grant iap.provisional_grants%ROWTYPE;
BEGIN
    UPDATE iap.provisional_grants SET state = 'cancelled', resolved_at = now()
    WHERE order_id = cancel_provisional_grant.order_id AND state = 'unconfirmed'
    RETURNING * INTO v_grant;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    IF v_grant.granted_at IS NULL THEN
        UPDATE iap.orders SET status = 'pending'
        WHERE order_id = cancel_provisional_grant.order_id AND status = 'verified';
    END IF;
    PERFORM pg_notify('iap_revoked', json_build_object(
        'order_id', v_grant.order_id, 'user_id', v_grant.user_id,
        'transaction_id', 'provisional:' || v_grant.order_id)::text);
    RETURN true;
END $$;

-- What the triggers below apply: the orders whose verification wrote an outcome in one statement, taken
-- together (a settle ends a batch of orders in one statement). Only the orders that concern a rule are looked
-- at one by one: those with an unconfirmed provisional grant, those ending `invalid`, and untrusted players'.
-- No JIT: the planner knows nothing of the transition tables, guesses a large cost, and would compile each
-- execution with LLVM (seconds of CPU per settle on a busy server) for a query over a batch of orders.
CREATE OR REPLACE FUNCTION iap.apply_trust_rules() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp SET jit = off AS $$
DECLARE
    r       record;
    v_units int;
BEGIN
    -- Most settles end no order a rule concerns: trusted players' (no trust recorded, and the order's store
    -- trusts by default), with no unconfirmed grant, none invalid. This look says so in a few index probes an
    -- order, and the query below (its joins planned again on every run, as a query over transition tables is)
    -- is skipped. Its conditions are the query's own WHERE, in the order that is cheapest to rule out.
    IF NOT EXISTS (
        SELECT 1 FROM new_orders n JOIN old_orders o ON o.order_id = n.order_id CROSS JOIN iap.trust_policy p
        WHERE n.outcome IS NOT NULL
          AND (n.outcome_at IS DISTINCT FROM o.outcome_at OR n.outcome IS DISTINCT FROM o.outcome
               OR n.delivered_quantity <> o.delivered_quantity)
          AND (n.outcome = 'invalid'
               OR EXISTS (SELECT 1 FROM iap.user_trust t WHERE t.user_id = n.user_id)
               OR EXISTS (SELECT 1 FROM iap.provisional_grants g
                          WHERE g.order_id = n.order_id AND g.state = 'unconfirmed')
               OR NOT iap.trust_level(NULL, coalesce(
                      (SELECT iap.job_store(j.kind) FROM iap.jobs j
                       WHERE j.order_id = n.order_id ORDER BY j.id DESC LIMIT 1),
                      (SELECT d.store FROM iap.deliveries d WHERE d.order_id = n.order_id
                       ORDER BY d.delivered_at DESC LIMIT 1),
                      'apple'), p.initial_apple, p.initial_google))
    ) THEN
        RETURN NULL;
    END IF;
    FOR r IN
        WITH ended AS (
            SELECT n.order_id, n.user_id, n.outcome, n.delivered_quantity,
                   n.delivered_quantity > o.delivered_quantity AS paid
            FROM new_orders n JOIN old_orders o ON o.order_id = n.order_id
            WHERE n.outcome IS NOT NULL
              AND (n.outcome_at IS DISTINCT FROM o.outcome_at OR n.outcome IS DISTINCT FROM o.outcome
                   OR n.delivered_quantity <> o.delivered_quantity)
        )
        SELECT e.*, s.store, t.trusted AS recorded, p.restore_after,
               iap.trust_level(t.trusted, s.store, p.initial_apple, p.initial_google) AS trusted,
               g.store AS grant_store, g.granted_at AS grant_granted_at, g.quantity AS grant_quantity
        FROM ended e
        CROSS JOIN iap.trust_policy p
        -- The store the order is verified in: its newest job's, else its newest ledger row's (an operator's
        -- assignment to an order without a job).
        CROSS JOIN LATERAL (
            SELECT coalesce(
                (SELECT iap.job_store(j.kind) FROM iap.jobs j
                 WHERE j.order_id = e.order_id ORDER BY j.id DESC LIMIT 1),
                (SELECT d.store FROM iap.deliveries d WHERE d.order_id = e.order_id
                 ORDER BY d.delivered_at DESC LIMIT 1),
                'apple') AS store
        ) s
        LEFT JOIN iap.user_trust t ON t.user_id = e.user_id AND t.store = s.store
        LEFT JOIN iap.provisional_grants g ON g.order_id = e.order_id AND g.state = 'unconfirmed'
        WHERE g.order_id IS NOT NULL OR e.outcome = 'invalid'
           OR NOT iap.trust_level(t.trusted, s.store, p.initial_apple, p.initial_google)
        ORDER BY e.order_id
    LOOP
        IF r.grant_store IS NOT NULL AND r.paid THEN
            -- Confirmed: the ledger now holds what paid the order, and the provisional row is gone.
            UPDATE iap.provisional_grants SET state = 'confirmed', resolved_at = now() WHERE order_id = r.order_id;
            IF r.grant_granted_at IS NOT NULL THEN
                SELECT coalesce(sum(d.quantity), 0) INTO v_units FROM iap.deliveries d
                WHERE d.order_id = r.order_id AND d.granted_at IS NULL AND d.revoked_at IS NULL;
                IF v_units = r.grant_quantity THEN
                    -- The game granted these very units provisionally: the real rows are marked granted, so
                    -- nothing is owed twice.
                    UPDATE iap.deliveries SET granted_at = r.grant_granted_at
                    WHERE order_id = r.order_id AND granted_at IS NULL AND revoked_at IS NULL;
                    UPDATE iap.orders SET status = 'finished' WHERE order_id = r.order_id AND status <> 'finished';
                ELSE
                    -- The payment is not the units granted (part of the order, or a transaction of more units):
                    -- the grant is exchanged for the real rows. They are owed, and the grant is handed back
                    -- through owed_revocations ('provisional_replaced'), so the player ends with what was paid.
                    UPDATE iap.provisional_grants SET replaced = true WHERE order_id = r.order_id;
                    PERFORM pg_notify('iap_revoked', json_build_object(
                        'order_id', r.order_id, 'user_id', r.user_id,
                        'transaction_id', 'provisional:' || r.order_id)::text);
                END IF;
            END IF;
        ELSIF r.grant_store IS NOT NULL AND r.delivered_quantity = 0
              AND r.outcome IN ('invalid', 'unmatched', 'no_in_app', 'failed') THEN
            -- Refuted: handed back to the game through owed_revocations, and the player loses trust.
            UPDATE iap.provisional_grants SET state = 'refuted', resolved_at = now(), refuted_by = r.outcome
            WHERE order_id = r.order_id;
            IF r.grant_granted_at IS NULL THEN
                -- Never granted: the order waits unpaid again, as it would have without the grant.
                UPDATE iap.orders SET status = 'pending' WHERE order_id = r.order_id AND status = 'verified';
            END IF;
            PERFORM pg_notify('iap_revoked', json_build_object(
                'order_id', r.order_id, 'user_id', r.user_id, 'transaction_id', 'provisional:' || r.order_id)::text);
            PERFORM iap.lose_trust(r.user_id, r.grant_store, 'provisional_refuted', r.order_id);
            CONTINUE;
        END IF;
        IF r.outcome = 'invalid' THEN
            PERFORM iap.lose_trust(r.user_id, r.store, 'invalid', r.order_id);
        ELSIF r.paid AND NOT r.trusted
              -- A renewal is no new payment the player chose: it earns no trust.
              AND r.order_id NOT LIKE 'renewal:%'
              -- A family member's shared purchase is no payment of this player's, nor is a free trial.
              AND EXISTS (SELECT 1 FROM iap.deliveries d
                          WHERE d.order_id = r.order_id AND d.ownership IS DISTINCT FROM 'family_shared'
                            AND NOT (d.subscription_id IS NOT NULL AND d.price = 0)) THEN
            -- One more order verified in a row; the last one needed restores trust. The row's own streak is
            -- read under its lock, so two orders of one player in one statement count twice.
            INSERT INTO iap.user_trust AS t (user_id, store, trusted, streak, changed_at, reason, order_id)
            VALUES (r.user_id, r.store, r.restore_after <= 1, CASE WHEN r.restore_after <= 1 THEN 0 ELSE 1 END,
                    now(), CASE WHEN r.restore_after <= 1 THEN 'restored' ELSE 'initial' END, r.order_id)
            ON CONFLICT (user_id, store) DO UPDATE
            SET trusted = t.streak + 1 >= r.restore_after,
                streak = CASE WHEN t.streak + 1 >= r.restore_after THEN 0 ELSE t.streak + 1 END,
                changed_at = CASE WHEN t.streak + 1 >= r.restore_after THEN now() ELSE t.changed_at END,
                reason = CASE WHEN t.streak + 1 >= r.restore_after THEN 'restored' ELSE t.reason END,
                order_id = CASE WHEN t.streak + 1 >= r.restore_after THEN r.order_id ELSE t.order_id END
            WHERE NOT t.trusted;
        ELSIF NOT r.paid AND r.delivered_quantity = 0 AND r.outcome IN ('unmatched', 'no_in_app') THEN
            -- Not in a row any more.
            UPDATE iap.user_trust SET streak = 0
            WHERE user_id = r.user_id AND store = r.store AND NOT trusted AND streak > 0;
        END IF;
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER orders_trust
AFTER UPDATE ON iap.orders
REFERENCING OLD TABLE AS old_orders NEW TABLE AS new_orders
FOR EACH STATEMENT EXECUTE FUNCTION iap.apply_trust_rules();

-- An input carried a purchase first delivered to another user: its sender loses that store's trust.
CREATE OR REPLACE FUNCTION iap.distrust_foreign_sender() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
BEGIN
    PERFORM iap.lose_trust(NEW.user_id,
        coalesce((SELECT iap.job_store(j.kind) FROM iap.jobs j WHERE j.id = NEW.job_id), 'apple'),
        'foreign_transaction', NEW.order_id);
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER foreign_transactions_distrust
AFTER INSERT ON iap.foreign_transactions
FOR EACH ROW EXECUTE FUNCTION iap.distrust_foreign_sender();

-- A player whose distinct purchases refunded in 90 days (iap.refunds_in_90_days: either store, whole, prorated or
-- some units; Family Sharing revocations are none of theirs) reach RECEIPTD_REFUND_ABUSE_LIMIT loses the trust of
-- the store of the latest refund, with reason `refunds`. Fired when a ledger row is first refunded, so a
-- purchase counts once however many of its units come back.
CREATE OR REPLACE FUNCTION iap.distrust_refunder() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_limit int := (SELECT refund_abuse_limit FROM iap.trust_policy WHERE singleton);
BEGIN
    IF NEW.user_id IS NOT NULL AND coalesce(NEW.revocation_reason, '') <> 'family_sharing'
       AND coalesce(v_limit, 0) > 0 AND iap.refunds_in_90_days(NEW.user_id) >= v_limit THEN
        PERFORM iap.lose_trust(NEW.user_id, NEW.store, 'refunds', NEW.order_id);
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER deliveries_refunds_distrust
AFTER UPDATE OF revoked_at, revoked_quantity, revocation_percentage ON iap.deliveries
FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND OLD.revoked_quantity = 0 AND OLD.revocation_percentage IS NULL
                   AND (NEW.revoked_at IS NOT NULL OR NEW.revoked_quantity > 0
                        OR NEW.revocation_percentage IS NOT NULL))
EXECUTE FUNCTION iap.distrust_refunder();

-- Each `receiptd run` writes its trust settings at start; the last daemon started wins.
CREATE OR REPLACE FUNCTION iap.set_trust_policy(initial_apple boolean, initial_google boolean, restore_after int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
BEGIN
    UPDATE iap.trust_policy
    SET initial_apple = set_trust_policy.initial_apple, initial_google = set_trust_policy.initial_google,
        restore_after = set_trust_policy.restore_after, updated_at = now()
    WHERE (initial_apple, initial_google, restore_after)
          IS DISTINCT FROM (set_trust_policy.initial_apple, set_trust_policy.initial_google,
                            set_trust_policy.restore_after);
END $$;

-- A player's level in both stores, as the rules see it: the recorded row, or the store's initial level
-- (`recorded` false, streak 0, no reason).
CREATE OR REPLACE FUNCTION iap.trust_of(user_id text)
RETURNS TABLE (store text, trusted boolean, streak int, changed_at timestamptz, reason text, order_id text,
               recorded boolean, unconfirmed_grants int)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
    SELECT s.store,
           iap.trust_level(t.trusted, s.store, p.initial_apple, p.initial_google), coalesce(t.streak, 0),
           t.changed_at, t.reason, t.order_id, t.user_id IS NOT NULL,
           (SELECT count(*)::int FROM iap.provisional_grants g
            WHERE g.user_id = trust_of.user_id AND g.store = s.store AND g.state = 'unconfirmed')
    FROM (VALUES ('apple'), ('google')) AS s (store)
    CROSS JOIN iap.trust_policy p
    LEFT JOIN iap.user_trust t ON t.user_id = trust_of.user_id AND t.store = s.store
    ORDER BY s.store
$$;

-- An operator sets a player's level in one store; `actor` (the operator's name) is recorded as the reason.
-- Setting trusted clears the streak; setting untrusted starts it again.
CREATE OR REPLACE FUNCTION iap.set_trust(user_id text, store text, trusted boolean, actor text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
BEGIN
    PERFORM iap.check_identifier('set_trust', 'user_id', set_trust.user_id);
    IF set_trust.store IS NULL OR set_trust.store NOT IN ('apple', 'google') THEN
        RAISE EXCEPTION 'set_trust: store must be apple or google, not %', set_trust.store USING ERRCODE = '22023';
    END IF;
    IF set_trust.trusted IS NULL THEN
        RAISE EXCEPTION 'set_trust: trusted must be true or false, not null' USING ERRCODE = '22023';
    END IF;
    INSERT INTO iap.user_trust (user_id, store, trusted, streak, changed_at, reason, order_id)
    VALUES (set_trust.user_id, set_trust.store, set_trust.trusted, 0, now(),
            'operator: ' || coalesce(nullif(set_trust.actor, ''), session_user), NULL)
    ON CONFLICT (user_id, store) DO UPDATE
    SET trusted = excluded.trusted, streak = 0, changed_at = now(), reason = excluded.reason, order_id = NULL;
    PERFORM iap.record_operator_action('set_trust', set_trust.user_id || ' ' || set_trust.store,
                                       CASE WHEN set_trust.trusted THEN 'trusted' ELSE 'untrusted' END, NULL);
END $$;

-- Grants provisionally the orders of trusted players whose verification the store holds up: the job has failed
-- with one of `outage_classes` (the error classes that mean the store, not the input, failed) since its input
-- arrived more than `failing_for` ago, or the API it needs is paused by a living daemon's circuit breaker. A signed
-- transaction is verified offline and never waits for a store. At most `per_user_limit` unconfirmed grants per
-- player. `receipt_api` is the API receipts go to (RECEIPTD_RECEIPT_VERIFIER). One granter at a time: the limit
-- holds across daemons. Returns what it granted; each order becomes verified and game servers are told on
-- iap_verified, as for a delivery.
--
-- The candidates are read without locks, oldest first and at most 200 a call; each is then locked on its own
-- (order and job, skipping those a settle or a game transaction holds) and checked again as it is now, so a
-- settle that ended the job meanwhile leaves it alone. No JIT, as for apply_trust_rules: compiling the candidates'
-- query would cost more than running it.
CREATE OR REPLACE FUNCTION iap.grant_provisional(
    failing_for interval, per_user_limit int, receipt_api text, outage_classes text[]
) RETURNS TABLE (order_id text, user_id text, store text, product_id text, quantity int, cause text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp SET jit = off AS $$
-- A bare name is the column: the parameters carry the contract's names, and the body qualifies them.
#variable_conflict use_column
DECLARE
    v_paused    text[];
    v_candidate record;
    v_order     iap.orders%ROWTYPE;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('iap.grant_provisional')) THEN
        RETURN;
    END IF;
    v_paused := ARRAY(SELECT DISTINCT unnest(d.paused_apis) FROM iap.daemons d
                      WHERE d.heartbeat_at > now() - interval '60 seconds');
    FOR v_candidate IN
        SELECT w.* FROM (
            SELECT j.id AS job_id, o.order_id, o.user_id, j.created_at, j.last_error,
                   iap.job_store(j.kind) AS store,
                   CASE j.kind WHEN 'receipt' THEN grant_provisional.receipt_api
                               WHEN 'transaction' THEN 'server_api' ELSE 'google_play' END AS api
            FROM iap.jobs j
            JOIN iap.orders o ON o.order_id = j.order_id
            WHERE j.state IN ('pending', 'running')
              AND NOT (j.kind = 'transaction' AND j.receipt_data !~ '^[0-9]+$')
              AND o.delivered_quantity = 0 AND o.status = 'pending'
        ) w
        CROSS JOIN iap.trust_policy p
        LEFT JOIN iap.user_trust t ON t.user_id = w.user_id AND t.store = w.store
        WHERE (w.api = ANY (v_paused)
               OR (w.created_at <= now() - grant_provisional.failing_for
                   AND split_part(w.last_error, ':', 1) = ANY (grant_provisional.outage_classes)))
          AND iap.trust_level(t.trusted, w.store, p.initial_apple, p.initial_google)
          AND NOT EXISTS (SELECT 1 FROM iap.provisional_grants g WHERE g.order_id = w.order_id)
        ORDER BY w.created_at, w.order_id
        LIMIT 200
    LOOP
        CONTINUE WHEN (SELECT count(*) FROM iap.provisional_grants g
                       WHERE g.user_id = v_candidate.user_id AND g.state = 'unconfirmed')
                      >= grant_provisional.per_user_limit;
        SELECT o.* INTO v_order
        FROM iap.orders o JOIN iap.jobs j ON j.order_id = o.order_id
        WHERE o.order_id = v_candidate.order_id AND j.id = v_candidate.job_id
          AND o.delivered_quantity = 0 AND o.status = 'pending' AND j.state IN ('pending', 'running')
        FOR UPDATE OF o, j SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;
        INSERT INTO iap.provisional_grants (order_id, user_id, store, product_id, quantity, job_id, cause)
        VALUES (v_order.order_id, v_order.user_id, v_candidate.store, v_order.product_id, v_order.quantity,
                v_candidate.job_id,
                CASE WHEN v_candidate.api = ANY (v_paused) THEN 'breaker_open' ELSE 'store_failing' END)
        ON CONFLICT DO NOTHING;
        CONTINUE WHEN NOT FOUND;
        UPDATE iap.orders SET status = 'verified' WHERE order_id = v_order.order_id;
        PERFORM pg_notify('iap_verified', json_build_object(
            'order_id', v_order.order_id, 'user_id', v_order.user_id, 'provisional', true)::text);
        order_id := v_order.order_id;
        user_id := v_order.user_id;
        store := v_candidate.store;
        product_id := v_order.product_id;
        quantity := v_order.quantity;
        cause := CASE WHEN v_candidate.api = ANY (v_paused) THEN 'breaker_open' ELSE 'store_failing' END;
        RETURN NEXT;
    END LOOP;
END $$;
