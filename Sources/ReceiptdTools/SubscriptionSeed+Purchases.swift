extension SubscriptionSeed {
    /// The one-time purchases of player `q` (one in five: `q % 5 = 0`): `m` = 1 a non-consumable (remove_ads or
    /// starter_pack in turn), 2 and 3 consumables; each in the store of one of the player's subscriptions, with
    /// its order, a job whose id follows the subscriptions' (`$3` of them), the time it was bought, its ledger id
    /// and the input its job verified (a transaction id, a purchase token).
    static let purchase = """
        CROSS JOIN LATERAL generate_series(1, 3) AS m
        CROSS JOIN LATERAL (
            SELECT 'player-' || q AS user_id, 'buy-' || q || '-' || m AS order_id,
                   CASE WHEN mod(hashint4(q + 5) & 2147483647, 5) < 3 THEN 'apple' ELSE 'google' END AS store,
                   CASE WHEN m = 1 THEN 'non_consumable' ELSE 'consumable' END AS kind,
                   8 * $3::bigint + 8 + 4::bigint * q + m AS job_id,
                   $4::timestamptz - make_interval(secs => 3600 + mod(hashint4(4 * q + m) & 2147483647, 120 * 86400)) AS at
        ) AS b
        CROSS JOIN LATERAL (
            SELECT CASE WHEN b.store = 'apple' THEN 'com.example.' ELSE '' END
                   || (ARRAY[(ARRAY['remove_ads', 'starter_pack'])[1 + q / 5 % 2], 'gems100', 'gems500'])[m] AS product_id,
                   CASE WHEN b.store = 'apple' THEN (5000000000000000 + 4::bigint * q + m)::text
                        ELSE 'GPA.3377-' || lpad((4::bigint * q + m)::text, 10, '0') END AS transaction_id,
                   CASE WHEN b.store = 'apple' THEN (5000000000000000 + 4::bigint * q + m)::text
                        ELSE md5('b' || q || '-' || m) || '.' || md5('c' || q || '-' || m) END AS input
        ) AS o
        """

    /// The statements of the players' one-time purchases, each over players `$1 … $2`, at the seed's clock `$4`.
    static let purchaseStatements = [
        """
        INSERT INTO iap.orders (order_id, user_id, product_id, quantity, created_at, checkout_at, outcome,
                                delivered_quantity, outcome_at, status)
        SELECT b.order_id, b.user_id, o.product_id, 1, b.at, b.at, 'full', 1, b.at + interval '4 seconds', 'finished'
        FROM generate_series($1::int, $2::int) AS q
        \(purchase)
        WHERE q % 5 = 0
        """,
        """
        INSERT INTO iap.jobs (id, order_id, kind, receipt_data, receipt_sha256, state, attempts, run_at, environment,
                              created_at, started_at, finished_at, submitted_by, kept)
        SELECT b.job_id, b.order_id, CASE b.store WHEN 'apple' THEN 'transaction' ELSE 'google_purchase' END, o.input,
               encode(sha256(convert_to(o.input, 'UTF8')), 'hex'), 'succeeded', 1, b.at, 'Production', b.at,
               b.at + interval '3 seconds', b.at + interval '4 seconds', b.user_id,
               b.at + interval '4 seconds' < $4::timestamptz - interval '30 days'
        FROM generate_series($1::int, $2::int) AS q
        \(purchase)
        WHERE q % 5 = 0
        """,
        """
        INSERT INTO iap.attempts (job_id, order_id, attempt, daemon, started_at, finished_at, duration_ms, environment,
                                  http_status, result)
        SELECT b.job_id, b.order_id, 1, 'seed-host:1:bench', b.at + interval '3880 milliseconds',
               b.at + interval '4 seconds', 120, 'Production', CASE WHEN b.store = 'google' THEN 200 END, 'verified'
        FROM generate_series($1::int, $2::int) AS q
        \(purchase)
        WHERE q % 5 = 0
        """,
        """
        INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, purchase_date, environment,
                                    job_id, delivered_at, granted_at, store, product_kind, ownership, price, currency)
        SELECT o.transaction_id, b.order_id, b.user_id, o.product_id, 1, b.at, 'Production', b.job_id,
               b.at + interval '4 seconds', b.at + interval '14 seconds', b.store, b.kind,
               CASE WHEN b.store = 'apple' THEN 'purchased' END, CASE WHEN m = 1 THEN 2.99 ELSE 0.99 END, 'USD'
        FROM generate_series($1::int, $2::int) AS q
        \(purchase)
        WHERE q % 5 = 0
        """,
        """
        INSERT INTO iap.transaction_owners (original_transaction_id, user_id, order_id, first_delivered_at)
        SELECT o.transaction_id, b.user_id, b.order_id, b.at + interval '4 seconds'
        FROM generate_series($1::int, $2::int) AS q
        \(purchase)
        WHERE q % 5 = 0 AND b.store = 'apple'
        """,
        """
        INSERT INTO iap.google_finalizations (transaction_id, order_id, product_id, purchase_token, action, created_at,
                                              overdue_at, run_at, attempts, done_at)
        SELECT o.transaction_id, b.order_id, o.product_id, o.input,
               CASE WHEN m = 1 THEN 'acknowledge' ELSE 'consume' END, b.at + interval '4 seconds',
               b.at + interval '1 hour', b.at + interval '4 seconds', 1, b.at + interval '6 seconds'
        FROM generate_series($1::int, $2::int) AS q
        \(purchase)
        WHERE q % 5 = 0 AND b.store = 'google'
        """,
    ]
}
