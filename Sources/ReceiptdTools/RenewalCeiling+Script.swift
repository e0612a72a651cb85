import ReceiptdCore

extension RenewalCeiling {
    /// The pgbench scripts of one store's renewal, in the order the work flows.
    enum Step: String, CaseIterable {
        /// The store's side: a new period of an active subscription, recorded as the intake records its push.
        case intake
        /// The notification processor's pass over a batch of notifications.
        case pass
        /// Google's subscription re-read, after the `subscriptionsv2` call: the answer recorded.
        case read
        /// The job worker: a batch of period jobs claimed and settled.
        case settle
    }

    /// Period jobs one run of the settle script claims and settles, as the receipt ceiling's batch.
    static let jobsPerClaim = DatabaseCeiling.jobsPerClaim
    /// Notifications one pass claims: the processor's batch.
    static let notificationsPerPass = NotificationProcessor.batchSize
    /// Notifications each client records before the timed run.
    static let headStartPerClient = 4 * notificationsPerPass
    /// The lease a re-read's claim takes, in seconds (the daemon's default).
    static let readLeaseSeconds = 60
    /// A renewed period's length, in milliseconds (30 days): longer than any seeded period's rest.
    static let periodMilliseconds: Int64 = 30 * 86_400_000

    /// The scratch tables of the store's side (the targets, and the periods the store signed: what its
    /// notification and its `subscriptionsv2` answer say, and what the daemon's verification would read), beside
    /// `iap`, which the daemon's statements alone write.
    static let preparation = [
        """
        CREATE TABLE IF NOT EXISTS public.ceiling_targets (
            store text NOT NULL, n int NOT NULL, subscription_id text NOT NULL, original_id text NOT NULL,
            product_id text NOT NULL, group_id text, token text, PRIMARY KEY (store, n))
        """,
        """
        INSERT INTO public.ceiling_targets (store, n, subscription_id, original_id, product_id, group_id, token)
        SELECT store, row_number() OVER (PARTITION BY store ORDER BY subscription_id), subscription_id,
               substr(subscription_id, length(store) + 2), product_id, group_id, purchase_token
        FROM iap.subscriptions WHERE state = 'active'
        ON CONFLICT DO NOTHING
        """,
        """
        CREATE TABLE IF NOT EXISTS public.ceiling_periods (
            transaction_id text PRIMARY KEY, store text NOT NULL, subscription_id text NOT NULL,
            product_id text NOT NULL, group_id text, token text, purchase_ms bigint NOT NULL,
            expires_ms bigint NOT NULL, store_ms bigint NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS ceiling_periods_latest ON public.ceiling_periods (subscription_id, expires_ms)",
        "ANALYZE public.ceiling_targets",
    ]

    /// What pgbench left half done when it was stopped, put aside so that nothing of it is due for a daemon that
    /// runs on this database later (notifications and jobs only a script can read), then the scratch tables
    /// dropped. `$1`: the last job before the ceiling.
    static let cleanup = [
        """
        UPDATE iap.store_notifications SET processed_at = now(), result = 'ignored', error = 'renewal ceiling: stopped'
        WHERE processed_at IS NULL AND notification_id LIKE 'ceiling-%'
        """,
        """
        UPDATE iap.jobs SET state = 'failed', finished_at = now(), locked_by = NULL, heartbeat_at = NULL,
            last_error = 'renewal ceiling: stopped'
        WHERE id > $1 AND state IN ('pending', 'running')
        """,
        """
        UPDATE iap.subscriptions SET read_due_at = iap.subscription_read_due(state, entitled_until),
            read_leased_until = NULL, read_attempts = 0
        WHERE subscription_id IN (SELECT DISTINCT subscription_id FROM public.ceiling_periods)
          AND (read_due_at <= now() OR read_leased_until IS NOT NULL)
        """,
        "DROP TABLE IF EXISTS public.ceiling_targets, public.ceiling_periods",
    ]

    /// The scripts of `store`'s renewal with their pgbench weights, the intake first. The weights make as many
    /// passes, re-reads and settles as the recorded notifications need when every batch is full.
    static func scripts(_ store: Store) -> [(Step, (text: String, weight: Int))] {
        let perCycle = notificationsPerPass * jobsPerClaim
        var scripts: [(Step, (text: String, weight: Int))] = [
            (.intake, (intakeScript(store), perCycle)),
            (.pass, (passScript(store), jobsPerClaim)),
        ]
        if store == .google { scripts.append((.read, (readScript, perCycle))) }
        scripts.append((.settle, (settleScript, notificationsPerPass)))
        return scripts
    }

    /// A new period's ids, which no seeded id and no other client's can be: Apple's transaction id from
    /// 9,000,000,000,000,000 (seeded ones stay below 4,000,000,000,000,000 + 8 × (N + 1)), Google's the seeded order
    /// id's `..<n>` from 1,000,000 (seeded ones end at `..5`); `n` from the run (0: the head start), the client and its
    /// own count.
    static let periodNumber = #"\set tx 1000000 + :run * 100000000000 + :client_id * 100000000 + :seq"#

    /// The store's side: an active subscription (`ceiling_targets`, each in turn over the clients, so that none renews
    /// twice before every one has once) renews; the period is signed (kept in `ceiling_periods`, as the stand-ins
    /// keep theirs), and its notification recorded by the intake's statement.
    static func intakeScript(_ store: Store) -> String {
        let now = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
        let pick = """
            \\set seq :seq + 1
            \\set r 1 + (:seq * :clients + :client_id) % :targets
            \(periodNumber)
            """
        let record = { (values: [String]) in substitute(PostgresJobQueue.recordNotification, values) }
        switch store {
        case .apple:
            return """
                \(pick)
                SELECT t.subscription_id AS sub, t.original_id AS original, t.product_id AS product, t.group_id AS grp,
                       (9000000000000000 + :tx::bigint)::text AS id, \(now) AS now_ms
                FROM public.ceiling_targets t WHERE t.store = 'apple' AND t.n = :r
                \\gset
                INSERT INTO public.ceiling_periods (transaction_id, store, subscription_id, product_id, group_id,
                                                    purchase_ms, expires_ms, store_ms)
                VALUES (:id, 'apple', :sub, :product, nullif(:grp, ''), :now_ms, :now_ms::bigint + \(periodMilliseconds), :now_ms);
                SELECT \(applePayload) AS payload
                \\gset
                \(record(["'apple'", "('ceiling-' || :id::text)", "'DID_RENEW'", "NULL", ":id", ":original", "'Production'", ":now_ms", "'push'", ":payload", "false"]));
                """
        case .google:
            return """
                \(pick)
                SELECT t.subscription_id AS sub, t.original_id || '..' || :tx::text AS id, t.product_id AS product,
                       t.token AS token, \(now) AS now_ms
                FROM public.ceiling_targets t WHERE t.store = 'google' AND t.n = :r
                \\gset
                INSERT INTO public.ceiling_periods (transaction_id, store, subscription_id, product_id, token, purchase_ms,
                                                    expires_ms, store_ms)
                VALUES (:id, 'google', :sub, :product, :token, :now_ms, :now_ms::bigint + \(periodMilliseconds), :now_ms);
                SELECT \(googlePayload) AS payload
                \\gset
                \(record(["'google'", "('ceiling-' || :id::text)", "'SUBSCRIPTION_RENEWED'", "NULL", "NULL", "NULL", "NULL", ":now_ms", "'push'", ":payload", "false"]));
                """
        }
    }

    /// What the intake stores of a `DID_RENEW`: the notification (its signed transaction and renewal info, a JWS
    /// each, of their usual length) and the signed transaction's payload, which the processor reads.
    static let applePayload = """
        jsonb_build_object(
            'notification', jsonb_build_object(
                'notificationType', 'DID_RENEW', 'notificationUUID', 'ceiling-' || :id::text, 'version', '2.0',
                'signedDate', :now_ms::bigint,
                'data', jsonb_build_object(
                    'appAppleId', 1234567890, 'bundleId', 'com.example.game', 'environment', 'Production', 'status', 1,
                    'signedTransactionInfo', 'eyJhbGciOiJFUzI1NiIsIng1YyI6WyJjZWlsaW5nIl19.' || repeat(md5(:id::text), 40)
                                             || '.' || md5('s' || :id::text),
                    'signedRenewalInfo', 'eyJhbGciOiJFUzI1NiIsIng1YyI6WyJjZWlsaW5nIl19.' || repeat(md5('r' || :id::text), 24)
                                         || '.' || md5('t' || :id::text))),
            'transaction', jsonb_build_object(
                'transactionId', :id::text, 'originalTransactionId', :original::text, 'productId', :product::text,
                'subscriptionGroupIdentifier', nullif(:grp::text, ''), 'bundleId', 'com.example.game',
                'purchaseDate', :now_ms::bigint, 'originalPurchaseDate', :now_ms::bigint - 10368000000,
                'expiresDate', :now_ms::bigint + \(periodMilliseconds), 'signedDate', :now_ms::bigint, 'quantity', 1,
                'type', 'Auto-Renewable Subscription', 'inAppOwnershipType', 'PURCHASED', 'environment', 'Production',
                'transactionReason', 'RENEWAL', 'storefront', 'USA', 'price', 4990, 'currency', 'USD'))::text
        """

    /// What the intake stores of a Pub/Sub push: the message (its data the notification, base64) and the notification.
    /// (No colon in a literal: pgbench would take `:name` there for a variable.)
    static let googlePayload = """
        (SELECT jsonb_build_object(
                    'message', jsonb_build_object('messageId', 'ceiling-' || :id::text,
                        'publishTime', to_jsonb(to_timestamp(:now_ms::bigint / 1000.0) AT TIME ZONE 'UTC'),
                        'data', replace(encode(convert_to(n::text, 'UTF8'), 'base64'), chr(10), '')),
                    'notification', n)::text
         FROM (SELECT jsonb_build_object(
                   'version', '1.0', 'packageName', 'com.example.game', 'eventTimeMillis', :now_ms::text,
                   'subscriptionNotification', jsonb_build_object(
                       'version', '1.0', 'notificationType', 2, 'purchaseToken', :token::text,
                       'subscriptionId', :product::text)) AS n) AS built)
        """

    /// The processor's pass, in the daemon's own text (`PostgresJobQueue.claimSettings`, `.notificationSQL`,
    /// `.notificationSavepoint`, and per notification the statements its action runs): the claim in the pass's
    /// transaction, then each claimed notification under its savepoint. The claim also spreads the claimed rows
    /// over one set of pgbench variables per slot, read from the stored payload as the processor reads it; a slot
    /// the claim left empty holds values that match no row.
    static func passScript(_ store: Store) -> String {
        let fields: [(String, String, String)] =
            switch store {
            case .apple:
                [
                    ("tx", "p -> 'transaction' ->> 'transactionId'", "''"),
                    ("original", "p -> 'transaction' ->> 'originalTransactionId'", "''"),
                    ("product", "p -> 'transaction' ->> 'productId'", "''"),
                    ("grp", "p -> 'transaction' ->> 'subscriptionGroupIdentifier'", "''"),
                    ("expires", "p -> 'transaction' ->> 'expiresDate'", "'0'"),
                    ("signed", "signed_ms::text", "'0'"),
                    ("jws", "p -> 'notification' -> 'data' ->> 'signedTransactionInfo'", "''"),
                ]
            case .google: [("token", "p -> 'notification' -> 'subscriptionNotification' ->> 'purchaseToken'", "''")]
            }
        let slots = (0..<notificationsPerPass).flatMap { slot in
            [("id_\(slot)", "max(id) FILTER (WHERE slot = \(slot))", "0")]
                + fields.map { name, value, empty in
                    ("\(name)_\(slot)", "max(\(value)) FILTER (WHERE slot = \(slot))", empty)
                }
        }
        let picks = slots.map { "coalesce(\($1), \($2)) AS \($0)" }.joined(separator: ",\n       ")
        let claim = substitute(PostgresJobQueue.notificationSQL.claim, [String(notificationsPerPass)])
        let blocks = (0..<notificationsPerPass).map { slot in
            let statements: [String]
            switch store {
            case .apple:
                let sub = "('apple:' || :original_\(slot)::text)"
                statements = [
                    substitute(
                        PostgresJobQueue.subscriptionNewsSQL,
                        [
                            sub, "'apple'", ":product_\(slot)", ":product_\(slot)", "nullif(:grp_\(slot), '')",
                            "'active'", ":expires_\(slot)", ":expires_\(slot)", "true", "'Production'", "'purchased'",
                            ":tx_\(slot)", ":original_\(slot)", ":signed_\(slot)", "false",
                        ]
                    ),
                    substitute(
                        PostgresJobQueue.enqueueSubscriptionPeriodSQL,
                        [sub, ":tx_\(slot)", ":product_\(slot)", ":jws_\(slot)"]
                    ),
                ]
            case .google:
                statements = [substitute(PostgresJobQueue.rereadGoogleSubscriptionSQL, [":token_\(slot)"])]
            }
            // The first notification sets the savepoint; each later one releases it and sets it again.
            let savepoint =
                slot == 0
                ? [PostgresJobQueue.notificationSavepoint.set]
                : [PostgresJobQueue.notificationSavepoint.release, PostgresJobQueue.notificationSavepoint.set]
            return (savepoint + statements).map { $0 + ";" }.joined(separator: "\n")
        }
        // The pass's results in one statement, as the daemon writes them; an empty slot's id 0 matches no row.
        let result = store == .apple ? NotificationResult.periodEnqueued : .subscriptionUpdated
        let ids = (0..<notificationsPerPass).map { ":id_\($0)" }.joined(separator: ", ")
        let finished = substitute(
            PostgresJobQueue.notificationSQL.markProcessed,
            [
                "(SELECT jsonb_agg(jsonb_build_object('id', x, 'result', '\(result.rawValue)', 'error', NULL)) "
                    + "FROM unnest(ARRAY[\(ids)]::bigint[]) AS x)"
            ]
        )
        return """
            BEGIN;
            \(PostgresJobQueue.claimSettings.without);
            WITH claimed AS (
            \(claim)
            ), numbered AS (
                SELECT row_number() OVER (ORDER BY signed_ms, id) - 1 AS slot, id, signed_ms, payload::jsonb AS p
                FROM claimed
            )
            SELECT \(picks)
            FROM numbered
            \\gset
            \(PostgresJobQueue.claimSettings.restored);
            \(blocks.joined(separator: "\n"))
            \(finished);
            COMMIT;
            """
    }

    /// Google's re-read (`PostgresJobQueue.subscriptionReadClaimSQL`, then `recordSubscriptionRead`'s transaction:
    /// the news, the period's order and job, the next read). The store's answer is the subscription's latest signed
    /// period (`ceiling_periods`); one due for another reason has no news (its row is written by no news statement,
    /// as the same news again would change nothing), and an empty claim touches no row.
    static let readScript = """
        WITH claimed AS (
        \(substitute(PostgresJobQueue.subscriptionReadClaimSQL, [String(readLeaseSeconds), "'[\"google\"]'"]))
        )
        SELECT coalesce((SELECT subscription_id FROM claimed), '') AS sid, coalesce((SELECT due_us FROM claimed), 0) AS due
        \\gset
        SELECT CASE WHEN a.transaction_id IS NULL THEN '' ELSE s.subscription_id END AS news,
               coalesce(substr(s.subscription_id, 8), '') AS original, coalesce(a.transaction_id, '') AS tx,
               coalesce(a.product_id, '') AS product, coalesce(a.token, '') AS token,
               coalesce(a.expires_ms, 0) AS expires, coalesce(a.store_ms, 0) AS signed
        FROM (SELECT 1) AS one
        LEFT JOIN iap.subscriptions s ON s.subscription_id = :sid
        LEFT JOIN LATERAL (
            SELECT * FROM public.ceiling_periods p WHERE p.subscription_id = s.subscription_id
            ORDER BY p.expires_ms DESC LIMIT 1) AS a ON true
        \\gset
        BEGIN;
        \(substitute(
            PostgresJobQueue.subscriptionNewsSQL,
            [
                ":news", "'google'", ":product", ":product", "NULL", "'active'", ":expires", ":expires", "true",
                "'Production'", "'purchased'", ":tx", ":original", ":signed", "false",
            ]
        ));
        \(substitute(PostgresJobQueue.enqueueSubscriptionPeriodSQL, [":news", ":tx", ":product", ":token"]));
        \(substitute(PostgresJobQueue.subscriptionReadDoneSQL, [":sid", ":due"]));
        COMMIT;
        """

    /// The job worker, in the daemon's text (`PostgresJobQueue.claimPlanSetting`, `.claimSQL`, `.settleReads`,
    /// `.settleWrite`, `.applySubscriptions`, `.notifyVerified`): one claim in a transaction of its own, then the
    /// settle's two pipelines, a batch of periods that each pay their renewal order and bring their subscription up
    /// to date. The claim builds the `jsonb` row sets the daemon builds in Swift from the verified periods (here the
    /// store's signed periods, `ceiling_periods`).
    static var settleScript: String {
        let claim = substitute(
            PostgresJobQueue.claimSQL,
            [String(jobsPerClaim), "'pgbench'", "'{receipt,transaction,google_purchase}'", "'all'"]
        )
        let rowSets = [
            ("users", "jsonb_agg(DISTINCT user_id)"), ("orders", "jsonb_agg(order_id)"),
            ("job_ids", "jsonb_agg(id::text)"), ("transactions", "jsonb_agg(transaction_id)"),
            ("originals", "jsonb_agg(DISTINCT substr(subscription_id, length(store) + 2))"),
            ("products", "jsonb_agg(DISTINCT product_id)"),
            (
                "deliveries",
                """
                jsonb_agg(jsonb_build_object('transaction_id', transaction_id, 'order_id', order_id, 'user_id', user_id,
                    'product_id', product_id, 'quantity', 1, 'purchase_ms', purchase_ms, 'environment', 'Production',
                    'job_id', id, 'store', store, 'product_kind', 'auto_renewable', 'ownership', 'purchased',
                    'price_milli', 4990, 'currency', 'USD', 'subscription_id', subscription_id, 'period_end_ms', expires_ms))
                """
            ),
            ("results", "jsonb_agg(jsonb_build_object('order_id', order_id, 'delivered', 1, 'outcome', 'full'))"),
            ("jobs", "jsonb_agg(jsonb_build_object('id', id, 'environment', 'Production', 'flag', NULL))"),
            (
                "attempts",
                """
                jsonb_agg(jsonb_build_object('job_id', id, 'order_id', order_id, 'attempt', attempts, 'started_ms', 0,
                    'duration_ms', 0, 'environment', 'Production',
                    'apple_status', CASE WHEN store = 'apple' THEN 0 END, 'http_status', 200, 'result', 'verified',
                    'error_class', NULL, 'error', NULL))
                """
            ),
            ("verified", "jsonb_agg(json_build_object('order_id', order_id, 'user_id', user_id)::text)"),
        ]
        let picks = rowSets.map { "coalesce(\($1), '[]')::text AS \($0)" }.joined(separator: ",\n       ")
        // Each subscription once, its newest period's news (as the settle keeps it).
        let subscriptions = """
            (SELECT coalesce(jsonb_agg(news), '[]')::text FROM (
                SELECT DISTINCT ON (subscription_id) jsonb_build_object('subscription_id', subscription_id, 'store', store,
                    'user_id', user_id, 'order_id', order_id, 'product_id', product_id, 'renews_to', NULL,
                    'group_id', group_id, 'state', 'active', 'entitled_ms', expires_ms, 'expires_ms', expires_ms,
                    'auto_renew', true, 'renewal_known', false, 'environment', 'Production', 'ownership', 'purchased',
                    'latest_transaction_id', transaction_id, 'store_ms', store_ms, 'purchase_token', token) AS news
                FROM periods ORDER BY subscription_id, store_ms DESC, expires_ms DESC) AS newest) AS subscriptions
            """
        return """
            BEGIN;
            \(PostgresJobQueue.claimPlanSetting);
            WITH claimed AS (
            \(claim)
            ), periods AS (
                SELECT c.id, c.order_id, c.user_id, c.attempts, p.transaction_id, p.store, p.subscription_id,
                       p.product_id, p.group_id, p.token, p.purchase_ms, p.expires_ms, p.store_ms
                FROM claimed c JOIN public.ceiling_periods p ON p.transaction_id = substr(c.order_id, 9)
            )
            SELECT \(picks),
                   \(subscriptions)
            FROM periods
            \\gset
            COMMIT;
            \\startpipeline
            BEGIN;
            \(substitute(PostgresJobQueue.settleReads.orders, [":users", ":orders"]));
            \(substitute(PostgresJobQueue.settleReads.jobs, [":job_ids", "'pgbench'"]));
            \(substitute(PostgresJobQueue.settleReads.delivered, [":transactions"]));
            \(substitute(PostgresJobQueue.settleReads.owners, [":originals"]));
            \(substitute(PostgresJobQueue.settleReads.revoked, [":transactions"]));
            \(substitute(PostgresJobQueue.settleReads.products, [":products"]));
            \\endpipeline
            \\startpipeline
            \(substitute(PostgresJobQueue.settleWrite, [":deliveries", "'[]'", ":results", ":jobs", "'pgbench'", ":attempts"]));
            \(substitute(PostgresJobQueue.applySubscriptions, [":subscriptions"]));
            \(substitute(PostgresJobQueue.notifyVerified, [":verified"]));
            COMMIT;
            \\endpipeline
            """
    }

    /// `sql` with each `$n` replaced by `values` (`DatabaseCeiling.substitute`).
    static func substitute(_ sql: String, _ values: [String]) -> String {
        DatabaseCeiling.substitute(sql, values)
    }
}
