/// The queries and actions behind `receiptd status`, `jobs`, `show`, `retry`, `cancel` and `enqueue`.
///
/// Every value goes to the server as a parameter. Reads need the `receiptd_operator` role; `retry` and
/// `cancel` call its functions; `enqueue` needs only `receiptd_app`.
package struct OperatorQueries: Sendable {
    /// How many stuck jobs `status()` lists by name.
    package static let stuckListLimit = 20
    /// A daemon whose heartbeat is younger than this counts as alive (it beats every quarter lease, 15 s by default).
    package static let aliveWithinSeconds = 60

    let connection: PostgresConnection
    /// Who acts, recorded in `iap.operator_actions` (the console's signed-in name, the CLI's OS user); `nil`
    /// records the database login.
    let actor: String?

    /// Uses `connection`; the caller opens and closes it. `actor` names who performs the actions.
    package init(connection: PostgresConnection, actor: String? = nil) {
        self.connection = connection
        self.actor = actor
    }

    /// SQL that renders a `timestamptz` expression as ISO-8601 UTC text, e.g. `2026-11-23T00:08:49Z`.
    static func utc(_ expression: String) -> String {
        "to_char(\(expression) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
    }

    /// The queue by state, retries of the last hour, stuck jobs and the count of recent failures, from one snapshot.
    package func status() async throws -> QueueStatus {
        let limit = Self.stuckListLimit
        return try await connection.withSession { session in
            try session.transaction { session in
                try session.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                let states = try session.execute(
                    "SELECT state, jobs, due_now, oldest_due_seconds, oldest_heartbeat_seconds FROM iap.queue_summary"
                )
                let retries = try session.execute(
                    "SELECT error_class, retries, jobs, \(Self.utc("last_seen")) AS last_seen FROM iap.recent_retries"
                )
                let stuck = try session.execute("SELECT * FROM iap.stuck_jobs LIMIT $1", [limit])
                let outcomes = try session.execute(
                    """
                    SELECT coalesce(outcome::text, 'none') AS outcome, count(*) AS orders
                    FROM iap.orders GROUP BY 1 ORDER BY 1
                    """
                )
                let daemons = try session.execute(
                    """
                    SELECT daemon, in_flight, extract(epoch FROM now() - heartbeat_at)::int AS age,
                           array_to_string(paused_apis, ',') AS paused_apis
                    FROM iap.daemons ORDER BY heartbeat_at DESC
                    """
                )
                let counts = try session.execute(
                    """
                    SELECT (SELECT count(*) FROM iap.stuck_jobs) AS stuck, (SELECT count(*) FROM iap.recent_failures) AS failures,
                           (SELECT count(*) FROM iap.deliveries WHERE environment IS DISTINCT FROM 'Sandbox') AS production,
                           (SELECT count(*) FROM iap.deliveries WHERE environment = 'Sandbox') AS sandbox,
                           (SELECT count(DISTINCT job_id) FROM iap.suspicious_receipts WHERE seen_at > now() - interval '24 hours')
                               AS suspicious,
                           (SELECT count(*) FROM iap.deliveries WHERE granted_at IS NULL AND delivered_at < now() - interval '10 minutes')
                               AS owed,
                           (SELECT count(*) FROM iap.unclaimed_payments WHERE assigned_at IS NULL) AS unclaimed,
                           (SELECT count(*) FROM iap.orders WHERE delivered_quantity > quantity) AS overpaid
                    """
                )
                // Jobs waiting for their store's settings: every such `last_error` holds the one marker.
                let unconfigured = try session.execute(
                    """
                    SELECT count(*) AS n FROM iap.jobs
                    WHERE state = '\(JobState.pending.rawValue)' AND strpos(last_error, $1) > 0
                    """,
                    [StoreNotConfigured.marker]
                )
                let blocked = try session.execute(
                    """
                    SELECT api, \(Self.utc("blocked_until")) AS blocked_until, ceil(extract(epoch FROM blocked_until - now()))::int AS remaining
                    FROM iap.api_pacing WHERE blocked_until > now() ORDER BY api
                    """
                )
                let polls = try session.execute(
                    """
                    SELECT package_name, extract(epoch FROM now() - succeeded_at)::int AS success_age,
                           CASE WHEN failed_at > coalesce(succeeded_at, '-infinity') THEN last_error END AS last_error,
                           CASE WHEN lock_missed_at > coalesce(lock_taken_at, '-infinity')
                                     AND now() - coalesce(lock_taken_at, created_at) > make_interval(secs => 3 * coalesce(interval_seconds, 600))
                                THEN extract(epoch FROM now() - coalesce(lock_taken_at, created_at))::int END AS lock_missing
                    FROM iap.google_voided_cursor ORDER BY package_name
                    """
                ).namedRows
                // Who holds the poll's lock, asked only when a poll misses it.
                var holders: [String] = []
                if polls.contains(where: { $0["lock_missing"] != nil }) {
                    holders = try AdvisoryLockHolder.holders(of: GoogleVoidedPoller.lockKey, in: session).map(
                        \.description
                    )
                }
                let notifications = try session.execute(
                    """
                    SELECT (SELECT count(*) FROM iap.deliveries
                            WHERE revoked_at < now() - interval '10 minutes' AND revocation_handled_at IS NULL)
                           -- Rows partly revoked by Google whose last partial refund is over 10 minutes old.
                           + (SELECT count(*) FROM iap.deliveries d
                              WHERE d.revoked_at IS NULL AND d.revoked_quantity > d.revocation_handled_quantity
                                AND (SELECT max(p.recorded_at) FROM iap.google_partial_refunds p
                                     WHERE p.transaction_id = d.transaction_id) < now() - interval '10 minutes')
                           -- Rows refunded by a share (Apple's prorated refunds) whose share is over 10 minutes old.
                           + (SELECT count(*) FROM iap.deliveries d
                              WHERE d.revoked_at IS NULL AND d.revocation_reason = 'refund_prorated'
                                AND d.revocation_percentage > d.revocation_handled_percentage
                                AND coalesce(d.store_time, d.delivered_at) < now() - interval '10 minutes')
                               AS revocations,
                           (SELECT count(*) FROM iap.store_notifications WHERE processed_at IS NULL) AS unprocessed,
                           (SELECT extract(epoch FROM now() - min(received_at))::int FROM iap.store_notifications
                            WHERE processed_at IS NULL) AS oldest_unprocessed,
                           (SELECT count(*) FROM iap.refund_requests
                            WHERE state IN ('waiting', 'answering') AND answer_by < now() + interval '1 hour')
                               AS refund_answers_late,
                           (SELECT \(Self.utc("max(received_at)")) FROM iap.store_notifications
                            WHERE store = 'google' AND notification_type = 'TEST') AS google_test,
                           (SELECT \(Self.utc("min(acknowledge_by)")) FROM iap.unclaimed_payments
                            WHERE store = 'google' AND assigned_at IS NULL) AS next_google_refund
                    """
                )
                let tests = try session.execute(
                    """
                    SELECT e.environment, \(Self.utc("t.received_at")) AS received_at, t.source
                    FROM (VALUES ('Production'), ('Sandbox')) AS e(environment)
                    LEFT JOIN LATERAL (
                        SELECT n.received_at, n.source FROM iap.store_notifications n
                        WHERE n.store = 'apple' AND n.notification_type = 'TEST' AND n.environment = e.environment
                        ORDER BY n.received_at DESC LIMIT 1
                    ) t ON true
                    ORDER BY e.environment
                    """
                )
                let statuses = try session.execute(
                    """
                    SELECT s.status::text AS status, count(o.order_id) AS orders
                    FROM unnest(enum_range(NULL::iap.order_status)) AS s(status)
                    LEFT JOIN iap.orders o ON o.status = s.status
                    GROUP BY s.status ORDER BY s.status
                    """
                )
                let trust =
                    try session.execute(TrustFigures.query).namedRows.first.map(TrustFigures.init(row:))
                    ?? TrustFigures()
                let subscriptions = try SubscriptionFigures(rows: session.execute(SubscriptionFigures.query).namedRows)
                let endpoint =
                    try session.execute(WebhookEndpointStatus.query).namedRows.first.map(
                        WebhookEndpointStatus.init(row:)
                    )
                    ?? WebhookEndpointStatus()
                let webhooks =
                    try session.execute(WebhookFigures.query).namedRows.first.map {
                        try WebhookFigures(row: $0, endpoint: endpoint)
                    } ?? WebhookFigures()
                let mismatches = try session.execute(Self.productKindMismatchQuery).namedRows.map(
                    CatalogueProduct.init(row:)
                )
                return QueueStatus(
                    states: try states.namedRows.map(QueueStatus.StateCount.init(row:)),
                    outcomes: try outcomes.namedRows.map(QueueStatus.OutcomeCount.init(row:)),
                    statuses: try statuses.namedRows.map {
                        QueueStatus.StatusCount(status: try $0.string("status"), orders: try $0.int("orders"))
                    },
                    owedOverTenMinutes: try counts.first?.int("owed") ?? 0,
                    unclaimedPayments: try counts.first?.int("unclaimed") ?? 0,
                    overpaidOrders: try counts.first?.int("overpaid") ?? 0,
                    daemons: try daemons.namedRows.map(QueueStatus.Daemon.init(row:)),
                    retriesLastHour: try retries.namedRows.map(QueueStatus.RetryCount.init(row:)),
                    stuckJobs: try stuck.namedRows.map(QueueStatus.StuckJob.init(row:)),
                    stuckTotal: try counts.first?.int("stuck") ?? 0,
                    recentFailures: try counts.first?.int("failures") ?? 0,
                    productionDeliveries: try counts.first?.int("production") ?? 0,
                    sandboxDeliveries: try counts.first?.int("sandbox") ?? 0,
                    suspiciousReceipts: try counts.first?.int("suspicious") ?? 0,
                    waitingForStoreConfiguration: try unconfigured.first?.int("n") ?? 0,
                    blockedAPIs: try blocked.namedRows.map {
                        QueueStatus.BlockedAPI(
                            api: try $0.string("api"),
                            blockedUntil: try $0.string("blocked_until"),
                            remainingSeconds: try $0.int("remaining")
                        )
                    },
                    voidedPolls: try polls.map {
                        QueueStatus.VoidedPoll(
                            packageName: try $0.string("package_name"),
                            lastSuccessSeconds: $0.optionalInt("success_age"),
                            lastError: $0["last_error"],
                            lockMissingSeconds: $0.optionalInt("lock_missing"),
                            lockHolders: $0["lock_missing"] == nil ? [] : holders
                        )
                    },
                    revocationsUnhandledOverTenMinutes: try notifications.first?.int("revocations") ?? 0,
                    lastTestNotifications: try tests.namedRows.map {
                        QueueStatus.TestNotification(
                            environment: try $0.string("environment"),
                            receivedAt: $0["received_at"],
                            source: $0["source"]
                        )
                    },
                    nextGoogleRefundOfUnclaimed: notifications.first?["next_google_refund"],
                    lastGoogleTestNotification: notifications.first?["google_test"],
                    unprocessedNotifications: try notifications.first?.int("unprocessed") ?? 0,
                    oldestUnprocessedNotificationSeconds: notifications.first?.optionalInt("oldest_unprocessed"),
                    refundAnswersLate: try notifications.first?.int("refund_answers_late") ?? 0,
                    provisionalGrants: trust.provisionalGrants,
                    untrustedUsers: trust.untrustedUsers,
                    subscriptions: subscriptions,
                    webhooks: webhooks,
                    productKindMismatches: mismatches
                )
            }
        }
    }

    /// Jobs matching `filter`, newest first.
    package func jobs(_ filter: JobFilter) async throws -> [JobSummary] {
        let result = try await connection.execute(
            """
            SELECT j.id, j.order_id, o.user_id, o.product_id, j.state, j.attempts, o.outcome::text AS outcome,
                   \(Self.utc("j.created_at")) AS created_at, \(Self.utc("j.run_at")) AS run_at,
                   \(Self.utc("j.finished_at")) AS finished_at, j.last_error
            FROM iap.jobs j JOIN iap.orders o ON o.order_id = j.order_id
            WHERE ($1::text IS NULL OR j.state = $1)
              AND ($2::text IS NULL OR j.order_id = $2)
              AND (($3::timestamptz IS NULL AND $4::int IS NULL)
                   OR greatest(j.created_at, j.started_at, j.finished_at)
                      >= coalesce($3::timestamptz, now() - make_interval(secs => $4::int)))
            ORDER BY j.id DESC
            LIMIT $5
            """,
            [
                filter.state?.rawValue, filter.orderID, filter.since?.instantText, filter.since?.secondsAgoValue,
                filter.limit,
            ]
        )
        return try result.namedRows.map(JobSummary.init(row:))
    }
}
