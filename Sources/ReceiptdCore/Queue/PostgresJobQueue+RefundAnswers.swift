extension PostgresJobQueue: RefundAnswerQueue {
    package func publishRefundAbuseLimit(_ limit: Int) async throws {
        try await pool.execute("SELECT iap.set_refund_abuse_limit($1)", [limit])
    }

    package func expireRefundRequests() async throws -> [ExpiredRefundRequest] {
        try await pool.execute(
            Self.refundSQL.expire
        ).namedRows.map { row in
            ExpiredRefundRequest(
                requestID: try row.string("request_id"),
                store: try Store(rawValue: row.string("store")) ?? .apple,
                transactionID: try row.string("transaction_id")
            )
        }
    }

    package func answerByPolicy(_ policy: RefundPolicy, limit: Int) async throws -> Int {
        let wait = policy.configuration.gameWait.seconds
        return try await pool.withSession { session in
            try session.transaction { session in
                let due = try session.execute(
                    Self.refundSQL.waiting,
                    [wait, limit]
                ).namedRows
                var decided: [[(String, JSONText.Value)]] = []
                for row in due {
                    let facts = RefundPolicy.Facts(
                        delivered: try row.bool("delivered"),
                        granted: try row.bool("granted"),
                        kind: row["product_kind"].flatMap(ProductKind.init(rawValue:)),
                        reportedConsumption: row["consumed_milliunits"].flatMap { Int($0) },
                        refundsIn90Days: try row.int("refunds")
                    )
                    let decision = policy.decide(facts)
                    decided.append([
                        ("notification_id", .int(Int64(try row.string("notification_id")) ?? 0)),
                        ("preference", .string(decision.preference.rawValue)),
                        ("consumed", .optional(decision.consumed)),
                    ])
                }
                if !decided.isEmpty {
                    _ = try session.execute(
                        """
                        UPDATE iap.refund_requests r
                        SET state = 'answering', answered_by = 'policy', preference = v.preference,
                            consumed_milliunits = v.consumed, run_at = now()
                        FROM jsonb_to_recordset($1::jsonb) AS v(notification_id bigint, preference text, consumed int)
                        WHERE r.notification_id = v.notification_id AND r.state = 'waiting'
                        """,
                        [JSONText.rows(decided)]
                    )
                }
                return decided.count
            }
        }
    }

    /// Claims due `answering` rows of `store` no lease holds (`SKIP LOCKED`), reading whether the game granted
    /// each transaction and its kind.
    package func claimRefundAnswers(store: Store, limit: Int, lease: Duration) async throws -> [OwedRefundAnswer] {
        try await pool.execute(
            Self.refundSQL.claim,
            [owner, limit, lease.seconds, store.rawValue]
        ).namedRows.map { row in
            OwedRefundAnswer(
                notificationID: Int64(try row.string("notification_id")) ?? 0,
                store: store,
                requestID: try row.string("request_id"),
                transactionID: try row.string("transaction_id"),
                environment: StoreEnvironment(rawValue: try row.string("environment")) ?? .production,
                attempts: try row.int("attempts"),
                deliveredAndGranted: try row.bool("granted"),
                kind: row["kind"].flatMap(ProductKind.init(rawValue:)),
                preference: row["preference"].flatMap(RefundPreference.init(rawValue:)) ?? .none,
                consumed: row["consumed_milliunits"].flatMap { Int($0) },
                answeredBy: row["answered_by"].flatMap(RefundAnswerSource.init(rawValue:)) ?? .policy,
                possiblySent: try row.bool("possibly_sent")
            )
        }
    }

    /// Renews this daemon's lease on `owed`, while it is still pending.
    package func renewRefundAnswerLease(_ owed: OwedRefundAnswer, lease: Duration) async throws -> Bool {
        try await pool.execute(
            """
            UPDATE iap.refund_requests SET locked_until = now() + make_interval(secs => $3)
            WHERE notification_id = $1 AND locked_by = $2 AND state = 'answering'
            """,
            [owed.notificationID, owner, lease.seconds]
        ).affectedRows == 1
    }

    /// `answered`, with what was sent; the lease is released.
    package func markRefundAnswerSent(_ owed: OwedRefundAnswer, deliveryStatus: String?, body: String) async throws {
        try await pool.execute(
            """
            UPDATE iap.refund_requests
            SET state = 'answered', sent_at = now(), answered_at = now(), delivery_status = $2,
                request_body = $3::jsonb, last_error = NULL, locked_by = NULL, locked_until = NULL
            WHERE notification_id = $1 AND state = 'answering'
            """,
            [owed.notificationID, deliveryStatus, body]
        )
    }

    /// Due again after `delay`, with the failure (and, when the call got no answer, marked possibly sent); the lease
    /// is released.
    package func recordRefundAnswerRetry(
        _ owed: OwedRefundAnswer,
        after delay: Duration,
        error: String,
        possiblySent: Bool
    ) async throws {
        try await pool.execute(
            """
            UPDATE iap.refund_requests
            SET run_at = now() + make_interval(secs => $3), last_error = $4, locked_by = NULL, locked_until = NULL,
                possibly_sent_at = CASE WHEN $5 THEN coalesce(possibly_sent_at, now()) ELSE possibly_sent_at END
            WHERE notification_id = $1 AND locked_by = $2 AND state = 'answering'
            """,
            [owed.notificationID, owner, delay.seconds, String(error.prefix(500)), possiblySent]
        )
    }

    /// Due again after `delay`, the claim's try given back; the lease is released.
    package func postponeRefundAnswer(_ owed: OwedRefundAnswer, after delay: Duration) async throws {
        try await pool.execute(
            """
            UPDATE iap.refund_requests
            SET run_at = now() + make_interval(secs => $3), attempts = greatest(0, attempts - 1),
                locked_by = NULL, locked_until = NULL
            WHERE notification_id = $1 AND locked_by = $2 AND state = 'answering'
            """,
            [owed.notificationID, owner, delay.seconds]
        )
    }

    /// `failed` for good, with the store's refusal; the lease is released.
    package func markRefundAnswerFailed(_ owed: OwedRefundAnswer, error: String) async throws {
        try await pool.execute(
            """
            UPDATE iap.refund_requests
            SET state = 'failed', last_error = $2, locked_by = NULL, locked_until = NULL
            WHERE notification_id = $1 AND state = 'answering'
            """,
            [owed.notificationID, String(error.prefix(500))]
        )
    }

    /// `unconfirmed`: a call got no answer and the one more call was not confirmed; the lease is released.
    package func markRefundAnswerUnconfirmed(_ owed: OwedRefundAnswer, error: String) async throws {
        try await pool.execute(
            """
            UPDATE iap.refund_requests
            SET state = 'unconfirmed', last_error = $2, locked_by = NULL, locked_until = NULL
            WHERE notification_id = $1 AND state = 'answering'
            """,
            [owed.notificationID, String(error.prefix(500))]
        )
    }

    /// The daemons' refund-request statements; each matches a partial index of `iap.refund_requests` as written
    /// (the daemons' sessions run with `enable_seqscan` off), which a test checks.
    package static let refundSQL = (
        // Requests still open at their deadline.
        expire: """
        UPDATE iap.refund_requests
        SET state = 'expired', locked_by = NULL, locked_until = NULL,
            last_error = coalesce(last_error || '; ', '') || 'not answered before ' || answer_by::text
        WHERE state IN ('waiting', 'answering') AND answer_by <= now()
        RETURNING request_id, store, transaction_id
        """,
        // The requests the game left waiting, locked so that its late answer waits for this decision.
        waiting: """
        SELECT r.notification_id, d.transaction_id IS NOT NULL AS delivered,
               d.granted_at IS NOT NULL AS granted, d.product_kind, c.consumed_milliunits,
               CASE WHEN r.user_id IS NULL THEN 0 ELSE iap.refunds_in_90_days(r.user_id) END AS refunds
        FROM iap.refund_requests r
        LEFT JOIN iap.deliveries d ON d.store = r.store AND d.transaction_id = r.transaction_id
        LEFT JOIN iap.consumption_reports c ON c.transaction_id = r.transaction_id
        WHERE r.state = 'waiting' AND r.answer_by > now()
          AND least(r.received_at + make_interval(secs => $1), r.answer_by - interval '2 hours') <= now()
        ORDER BY r.answer_by
        LIMIT $2
        FOR UPDATE OF r SKIP LOCKED
        """,
        // Answers to send to one store that no lease holds. A row whose lease ran out while held (its daemon died or
        // hung mid-call) may have reached the store: it is marked possibly sent, so that this call is the last.
        claim: """
        WITH due AS (
            SELECT notification_id, locked_by IS NOT NULL AS abandoned FROM iap.refund_requests
            WHERE state = 'answering' AND store = $4 AND run_at <= now() AND answer_by > now()
              AND (locked_until IS NULL OR locked_until < now())
            ORDER BY run_at
            LIMIT $2
            FOR UPDATE SKIP LOCKED
        )
        UPDATE iap.refund_requests c
        SET locked_by = $1, locked_until = now() + make_interval(secs => $3), attempts = c.attempts + 1,
            possibly_sent_at = CASE WHEN due.abandoned THEN coalesce(c.possibly_sent_at, now())
                                    ELSE c.possibly_sent_at END
        FROM due WHERE c.notification_id = due.notification_id
        RETURNING c.notification_id, c.request_id, c.transaction_id, c.environment, c.attempts, c.preference,
                  c.consumed_milliunits, c.answered_by, c.possibly_sent_at IS NOT NULL AS possibly_sent,
                  EXISTS (SELECT 1 FROM iap.deliveries d
                          WHERE d.store = c.store AND d.transaction_id = c.transaction_id
                            AND d.granted_at IS NOT NULL) AS granted,
                  (SELECT d.product_kind FROM iap.deliveries d
                   WHERE d.store = c.store AND d.transaction_id = c.transaction_id) AS kind
        """
    )
}
