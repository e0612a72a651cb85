import Foundation

/// The settle's statements beside its reads: the one write of every plan, and the follow-ups a batch needs.
extension PostgresJobQueue {
    /// Orders other receipts of the batch completed: their active jobs are closed as superseded by the paying job,
    /// and a running one's daemon is told to stop asking its store.
    static let closeCompletedOrders = """
        WITH paid AS (
            SELECT order_id, job_id FROM jsonb_to_recordset($1::jsonb) AS p(order_id text, job_id bigint)
        ), closed AS (
            SELECT j.id, j.state, paid.job_id FROM iap.jobs j JOIN paid ON paid.order_id = j.order_id
            WHERE j.order_id = ANY (ARRAY(SELECT order_id FROM paid))
              AND j.state IN ('\(JobState.pending.rawValue)', '\(JobState.running.rawValue)')
            FOR UPDATE OF j
        ), updated AS (
            UPDATE iap.jobs j SET state = '\(JobState.superseded.rawValue)', superseded_by = closed.job_id, finished_at = now(), locked_by = NULL
            FROM closed WHERE j.id = closed.id
            RETURNING j.id
        )
        SELECT pg_notify('iap_job_cancel', closed.id::text) FROM closed WHERE closed.state = '\(JobState.running.rawValue)'
        """

    /// The renewal orders of later periods a batch delivers (`iap.open_renewal_orders`).
    static let openRenewalOrders = "SELECT iap.open_renewal_orders($1::jsonb)"

    /// Verified purchases that paid no order, once each, unless bought before `$2` (`RECEIPTD_UNCLAIMED_SINCE`;
    /// NULL: when this database was first migrated), which an older system is taken to have delivered.
    static let recordUnclaimed = """
        INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, purchase_date, environment, user_id, order_id, job_id,
                                            original_transaction_id)
        SELECT u.transaction_id, u.product_id, u.quantity, to_timestamp(u.purchase_ms / 1000.0), u.environment, u.user_id,
               u.order_id, u.job_id, u.original_id
        FROM jsonb_to_recordset($1::jsonb) AS u(transaction_id text, product_id text, quantity int, purchase_ms bigint,
                                                 environment text, user_id text, order_id text, job_id bigint, original_id text)
        WHERE to_timestamp(u.purchase_ms / 1000.0)
              >= coalesce($2::timestamptz, (SELECT applied_at FROM iap.schema_migrations WHERE version = 1), '-infinity')
        ON CONFLICT (transaction_id) DO NOTHING
        """

    /// Products a store named the kind of: recorded for the catalogue (`source` `store`) when nobody declared them,
    /// and the store's word kept beside a declared kind (`store_kind`); the kind of a product only the store
    /// described follows the store.
    static let learnProducts = """
        INSERT INTO iap.products AS p (store, product_id, kind, source, store_kind)
        SELECT l.store, l.product_id, l.kind, 'store', l.kind
        FROM jsonb_to_recordset($1::jsonb) AS l(store text, product_id text, kind text)
        ON CONFLICT (store, product_id) DO UPDATE
        SET store_kind = excluded.store_kind, updated_at = now(),
            kind = CASE WHEN p.source = 'store' THEN excluded.kind ELSE p.kind END
        WHERE p.store_kind IS DISTINCT FROM excluded.store_kind
        """

    /// Units Google reports refunded (productsv2's `refundableQuantity` below `quantity`) that the ledger row has not
    /// revoked: revoked as the voided purchases poll would (`iap.revoke_refunded_units`), all of them revoking the
    /// row. The row may be this batch's or older; only ever raised.
    static let revokeStoreRefundedUnits = """
        UPDATE iap.deliveries d SET revoked_quantity = least(d.quantity, r.units),
            revocation_percentage = CASE WHEN r.units < d.quantity THEN iap.units_share(r.units, d.quantity) END,
            revoked_at = CASE WHEN r.units >= d.quantity THEN now() END,
            revocation_reason = CASE WHEN r.units >= d.quantity THEN 'partial_refunds' END
        FROM jsonb_to_recordset($1::jsonb) AS r(transaction_id text, units int)
        WHERE d.store = 'google' AND d.transaction_id = r.transaction_id AND d.revoked_at IS NULL
          AND d.revoked_quantity < least(d.quantity, r.units)
        """

    /// The subscriptions a batch's periods say: created with the player and order of the period that brought them,
    /// else brought up to date unless the row holds newer news (`store_time`). The player and the first order stay;
    /// so do `auto_renew` and `renews_to` when the news does not say them (a signed transaction alone), unless it
    /// ended the subscription. A signed transaction alone whose period is over says nothing of whether it renewed (a
    /// client's late input): its subscription is read from the store at once, not left for ended.
    package static let applySubscriptions = """
        INSERT INTO iap.subscriptions AS s (subscription_id, store, user_id, order_id, product_id, renews_to, group_id,
                                            state, entitled_until, expires_at, auto_renew, environment, ownership,
                                            latest_transaction_id, store_time, read_due_at, purchase_token)
        SELECT r.subscription_id, r.store, r.user_id, r.order_id, r.product_id,
               CASE WHEN r.renewal_known THEN r.renews_to ELSE k.renews_to END, r.group_id, r.state,
               to_timestamp(r.entitled_ms / 1000.0), to_timestamp(r.expires_ms / 1000.0),
               CASE WHEN r.renewal_known OR r.state IN ('expired', 'revoked') THEN r.auto_renew
                    ELSE coalesce(k.auto_renew, r.auto_renew) END, r.environment,
               r.ownership, r.latest_transaction_id, to_timestamp(r.store_ms / 1000.0),
               CASE WHEN NOT r.renewal_known AND r.state = 'expired' THEN now()
                    ELSE iap.subscription_read_due(r.state, to_timestamp(r.entitled_ms / 1000.0)) END, r.purchase_token
        FROM jsonb_to_recordset($1::jsonb) AS r(subscription_id text, store text, user_id text, order_id text,
                                                product_id text, renews_to text, group_id text, state text,
                                                entitled_ms bigint, expires_ms bigint, auto_renew boolean,
                                                renewal_known boolean, environment text, ownership text,
                                                latest_transaction_id text, store_ms bigint, purchase_token text)
        LEFT JOIN iap.subscriptions k ON k.subscription_id = r.subscription_id
        \(subscriptionNewsUpsert)
        """

    /// Subscriptions another account presented move to it (`RECEIPTD_SUBSCRIPTION_RESTORE=transfer`), and with them
    /// the first owner of their original transaction, so that their later periods pay that account's renewal orders.
    /// The trigger records the move in the history and writes `subscription.transferred`.
    static let transferSubscriptions = """
        WITH moved AS (
            UPDATE iap.subscriptions s SET user_id = t.user_id, updated_at = now()
            FROM jsonb_to_recordset($1::jsonb) AS t(subscription_id text, user_id text)
            WHERE s.subscription_id = t.subscription_id AND s.user_id <> t.user_id
            RETURNING s.subscription_id, s.user_id
        )
        UPDATE iap.transaction_owners o SET user_id = m.user_id
        FROM moved m WHERE m.subscription_id LIKE 'apple:%' AND o.original_transaction_id = substr(m.subscription_id, 7)
        """

    /// Senders of replayed inputs lose the store's trust (`iap.lose_trust`, reason `replay`).
    static let distrustReplays = """
        SELECT iap.lose_trust(r.user_id, r.store, 'replay', r.order_id)
        FROM jsonb_to_recordset($1::jsonb) AS r(user_id text, store text, order_id text)
        """

    /// Tells game servers listening on `iap_verified` which orders just received goods: one JSON payload each.
    package static let notifyVerified = """
        SELECT pg_notify('iap_verified', payload) FROM jsonb_array_elements_text($1::jsonb) AS payload
        """

    /// Purchases of other users that receipts carried.
    static let flagForeignPurchases = """
        INSERT INTO iap.foreign_transactions (job_id, order_id, user_id, original_transaction_id, owner_user_id)
        SELECT f.job_id, f.order_id, f.user_id, f.original_id, f.owner
        FROM jsonb_to_recordset($1::jsonb) AS f(job_id bigint, order_id text, user_id text, original_id text, owner text)
        ON CONFLICT DO NOTHING
        """

    /// Every plan's writes as one statement: ledger rows, first owners, orders, the jobs and their attempts. The
    /// ledger and owner inserts have no ON CONFLICT: a transaction delivered meanwhile fails them with a unique
    /// violation, and the whole batch is planned again.
    package static let settleWrite = """
        WITH ledger AS (
            INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, purchase_date, environment, job_id,
                                        store, product_kind, ownership, price, currency, offer_type, offer_id, purchase_option_id,
                                        revocation_percentage, revoked_quantity, revocation_reason, subscription_id,
                                        period_start, period_end, granted_at)
            SELECT d.transaction_id, d.order_id, d.user_id, d.product_id, d.quantity, to_timestamp(d.purchase_ms / 1000.0),
                   d.environment, d.job_id, coalesce(d.store, 'apple'), d.product_kind, d.ownership,
                   trim_scale(d.price_milli / 1000.0), d.currency, d.offer_type, d.offer_id, d.purchase_option_id,
                   d.revocation_percentage, coalesce(iap.prorated_units(d.quantity, d.revocation_percentage), 0),
                   d.revocation_reason, d.subscription_id,
                   CASE WHEN d.subscription_id IS NOT NULL THEN to_timestamp(d.purchase_ms / 1000.0) END,
                   to_timestamp(d.period_end_ms / 1000.0), CASE WHEN d.granted THEN now() END
            FROM jsonb_to_recordset($1::jsonb) AS d(transaction_id text, order_id text, user_id text, product_id text, quantity int,
                                                     purchase_ms bigint, environment text, job_id bigint, store text,
                                                     product_kind text, ownership text, price_milli bigint, currency text,
                                                     offer_type text, offer_id text, purchase_option_id text,
                                                     revocation_percentage int, revocation_reason text,
                                                     subscription_id text, period_end_ms bigint, granted boolean)
        ), finalizations AS (
            -- Written with the ledger row: a crash after this commit still acknowledges the purchase.
            INSERT INTO iap.google_finalizations (transaction_id, order_id, product_id, purchase_token, action, overdue_at)
            SELECT d.transaction_id, d.order_id, d.finalize_product, d.purchase_token, d.finalize,
                   now() + make_interval(secs => d.overdue_s)
            FROM jsonb_to_recordset($1::jsonb) AS d(transaction_id text, order_id text, finalize_product text, purchase_token text,
                                                     finalize text, overdue_s float8)
            WHERE d.finalize IS NOT NULL
        ), owners AS (
            INSERT INTO iap.transaction_owners (original_transaction_id, user_id, order_id)
            SELECT n.original_id, n.user_id, n.order_id FROM jsonb_to_recordset($2::jsonb) AS n(original_id text, user_id text, order_id text)
        ), claimed AS (
            -- A payment recorded as unclaimed that a later receipt delivered after all.
            UPDATE iap.unclaimed_payments u SET assigned_order_id = d.order_id, assigned_at = now()
            FROM jsonb_to_recordset($1::jsonb) AS d(transaction_id text, order_id text)
            WHERE u.transaction_id = ANY (ARRAY(SELECT jsonb_array_elements($1::jsonb) ->> 'transaction_id'))
              AND u.transaction_id = d.transaction_id AND u.assigned_at IS NULL
        ), paid AS (
            -- New units make the order verified (from pending, closed or finished) until the game grants them; units
            -- recorded granted (periods a game only checks as an entitlement) finish an order nothing else is owed of.
            UPDATE iap.orders o SET delivered_quantity = r.delivered, outcome = r.outcome::iap.outcome, outcome_at = now(),
                status = CASE WHEN r.delivered > o.delivered_quantity
                              THEN CASE WHEN r.granted AND o.status <> 'verified' THEN 'finished' ELSE 'verified' END::iap.order_status
                              ELSE o.status END
            FROM jsonb_to_recordset($3::jsonb) AS r(order_id text, delivered int, outcome text, granted boolean)
            WHERE o.order_id = ANY (ARRAY(SELECT jsonb_array_elements($3::jsonb) ->> 'order_id')) AND o.order_id = r.order_id
              AND o.outcome IS DISTINCT FROM 'full'
        ), finished AS (
            UPDATE iap.jobs j SET state = '\(JobState.succeeded.rawValue)', finished_at = now(), environment = f.environment, last_error = f.flag,
                locked_by = NULL, heartbeat_at = NULL
            FROM jsonb_to_recordset($4::jsonb) AS f(id bigint, environment text, flag text)
            WHERE j.id = ANY (ARRAY(SELECT (jsonb_array_elements($4::jsonb) ->> 'id')::bigint)) AND j.id = f.id
        )
        \(insertAttempts(rows: 6, daemon: 5))
        """
}
