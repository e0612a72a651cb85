import Foundation

extension PostgresJobQueue: SubscriptionReadQueue {
    /// The earliest due subscription of `stores` whose lease is free (due at or after `after`, microseconds since
    /// 1970, when given), leased and its try counted.
    package func claimSubscriptionRead(
        lease: Duration,
        stores: [Store],
        after: Int64? = nil
    ) async throws -> OwedSubscriptionRead? {
        let parameters: [any SQLParameter] = [lease.seconds, JSONText.array(stores.map(\.rawValue))]
        return try await pool.execute(
            after == nil ? Self.subscriptionReadClaimSQL : Self.subscriptionReadClaimAfterSQL,
            parameters + (after.map { [$0 as any SQLParameter] } ?? [])
        ).namedRows.first.map { row in
            let id = try row.string("subscription_id")
            let store = Store(rawValue: try row.string("store")) ?? .apple
            return OwedSubscriptionRead(
                subscriptionID: id,
                store: store,
                originalTransactionID: String(id.dropFirst(store.rawValue.count + 1)),
                purchaseToken: row["purchase_token"],
                expiresAtMilliseconds: row["expires_ms"].flatMap { Int64($0) },
                environment: StoreEnvironment(rawValue: try row.string("environment")) ?? .production,
                attempts: try row.int("read_attempts"),
                dueAtMicroseconds: row["due_us"].flatMap { Int64($0) }
            )
        }
    }

    /// The claim, polled every interval by every daemon with Server API credentials: it follows
    /// `subscriptions_read_due` from the start.
    package static let subscriptionReadClaimSQL = subscriptionReadClaim(from: "")

    /// The claim from a point (`$3`, microseconds since 1970: when the daemon's last claimed row was due), so that
    /// it does not walk again what the earlier claims passed (`SubscriptionReadCursor`); the same index, a range.
    package static let subscriptionReadClaimAfterSQL = subscriptionReadClaim(
        from: "AND read_due_at >= to_timestamp(0) + $3::bigint * interval '1 microsecond'"
    )

    private static func subscriptionReadClaim(from bound: String) -> String {
        """
        WITH due AS (
            SELECT subscription_id FROM iap.subscriptions
            WHERE read_due_at <= now() \(bound)
              AND store = ANY (ARRAY(SELECT jsonb_array_elements_text($2::jsonb)))
              AND (read_leased_until IS NULL OR read_leased_until < now())
            ORDER BY read_due_at
            LIMIT 1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE iap.subscriptions s
        SET read_leased_until = now() + make_interval(secs => $1), read_attempts = s.read_attempts + 1
        FROM due WHERE s.subscription_id = due.subscription_id
        RETURNING s.subscription_id, s.store, s.environment, s.read_attempts, s.purchase_token,
                  (extract(epoch FROM s.expires_at) * 1000)::bigint AS expires_ms,
                  (extract(epoch FROM s.read_due_at) * 1000000)::bigint AS due_us
        """
    }

    /// One indexed probe per id: the ledger's row, else the period's renewal order.
    package func periodsLacking(_ transactionIDs: [String]) async throws -> Set<String> {
        guard !transactionIDs.isEmpty else { return [] }
        let rows = try await pool.execute(
            """
            SELECT t.id FROM jsonb_array_elements_text($1::jsonb) AS t(id)
            WHERE NOT EXISTS (SELECT 1 FROM iap.deliveries d WHERE d.store = 'apple' AND d.transaction_id = t.id)
              AND NOT EXISTS (SELECT 1 FROM iap.orders o WHERE o.order_id = 'renewal:' || t.id)
            """,
            [JSONText.array(transactionIDs)]
        )
        return Set(try rows.namedRows.map { try $0.string("id") })
    }

    /// One probe of `deliveries_subscription`, backwards from `milliseconds`.
    package func ledgerPeriodEnd(of subscriptionID: String, before milliseconds: Int64) async throws -> Int64? {
        try await pool.execute(
            """
            SELECT (extract(epoch FROM period_end) * 1000)::bigint AS end_ms FROM iap.deliveries
            WHERE subscription_id = $1 AND period_start < to_timestamp($2::bigint / 1000.0)
            ORDER BY period_start DESC LIMIT 1
            """,
            [subscriptionID, milliseconds]
        ).first?["end_ms"].flatMap { Int64($0) }
    }

    /// One transaction: the earlier periods' orders, each item's news, each missing period's order, then the row's
    /// next read from its state, unless news asked for a read while this one was under way (the row came due after
    /// the claim's time): that read still stands, for the store may have answered before the news.
    package func recordSubscriptionRead(
        _ owed: OwedSubscriptionRead,
        items: [SubscriptionReadItem],
        earlierPeriods: [SubscriptionReadItem] = []
    ) async throws -> Int {
        try await pool.withSession { session in
            try session.rollingBack { session in
                _ = try session.execute("BEGIN")
                var enqueued = 0
                for period in earlierPeriods where try Self.enqueueSubscriptionPeriod(of: period, in: session) {
                    enqueued += 1
                }
                for item in items {
                    guard let snapshot = item.snapshot else { continue }
                    let record = try Self.recordSubscriptionNews(
                        snapshot,
                        originalTransactionID: item.originalTransactionID,
                        requestRead: false,
                        in: session
                    )
                    guard record.known, !record.delivered, !item.isRevoked else { continue }
                    if try Self.enqueueSubscriptionPeriod(of: item, in: session) { enqueued += 1 }
                }
                _ = try session.execute(
                    Self.subscriptionReadDoneSQL,
                    [owed.subscriptionID, owed.dueAtMicroseconds]
                )
                _ = try session.execute("COMMIT")
                return enqueued
            }
        }
    }

    /// A re-read of subscription `$1`, claimed when it was due at `$2` (microseconds since 1970), recorded: its next
    /// read follows its state, unless news asked for one while this read was under way (the row came due after the
    /// claim's time), and its lease is released.
    package static let subscriptionReadDoneSQL = """
        UPDATE iap.subscriptions
        SET read_due_at = CASE
                WHEN read_due_at <= now() AND read_due_at > to_timestamp(0) + $2::bigint * interval '1 microsecond'
                    THEN read_due_at
                ELSE iap.subscription_read_due(state, entitled_until) END,
            read_leased_until = NULL, read_attempts = 0, read_error = NULL, read_at = now(), read_failing_since = NULL
        WHERE subscription_id = $1
        """

    /// Due again after `delay`; the lease is released.
    package func retrySubscriptionRead(_ owed: OwedSubscriptionRead, after delay: Duration, error: String?) async throws
    {
        _ = try await pool.execute(
            """
            UPDATE iap.subscriptions
            SET read_due_at = now() + make_interval(secs => $2), read_leased_until = NULL,
                read_attempts = CASE WHEN $3::text IS NULL THEN greatest(read_attempts - 1, 0) ELSE read_attempts END,
                read_error = coalesce($3, read_error)
            WHERE subscription_id = $1
            """,
            [owed.subscriptionID, delay.seconds, error.map { String($0.prefix(500)) }]
        )
    }

    /// Refused for good: due again after `interval` and failing (`read_failing_since`), the lease released and the
    /// refusal kept; once the entitlement ended over 60 days ago, not due any more (the stores forget a subscription
    /// by then). True when it is read again.
    package func failSubscriptionRead(
        _ owed: OwedSubscriptionRead,
        error: String,
        retryAfter interval: Duration
    ) async throws -> Bool {
        try await pool.execute(
            Self.subscriptionReadFailSQL,
            [owed.subscriptionID, String(error.prefix(500)), interval.seconds]
        )
        .first?["retried"] == "t"
    }

    /// The refusal: an entitlement that ended (`entitled_until`, or for one no longer entitled its period's end) more
    /// than 60 days ago, or a row with neither, ends the retries and the failing.
    package static let subscriptionReadFailSQL = """
        UPDATE iap.subscriptions
        SET read_due_at = CASE WHEN retry THEN now() + make_interval(secs => $3) END,
            read_failing_since = CASE WHEN retry THEN coalesce(read_failing_since, now()) END,
            read_leased_until = NULL, read_error = $2
        FROM (
            SELECT (coalesce(entitled_until, expires_at) > now() - interval '60 days') IS TRUE AS retry
            FROM iap.subscriptions WHERE subscription_id = $1
        ) AS r
        WHERE subscription_id = $1
        RETURNING r.retry::text AS retried
        """

    /// Two index-only counts (migration 23's indexes).
    package func subscriptionFigures() async throws -> SubscriptionFigures {
        try SubscriptionFigures(rows: try await pool.execute(SubscriptionFigures.query).namedRows)
    }
}
