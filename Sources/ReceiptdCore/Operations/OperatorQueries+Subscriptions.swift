extension OperatorQueries {
    /// The player's subscriptions, newest first, each with its periods and history, from one snapshot.
    package func subscriptions(of userID: String) async throws -> [SubscriptionSummary] {
        let (subscriptions, periods, history) = try await connection.withSession { session in
            try session.transaction { session in
                try session.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                let subscriptions = try session.execute(
                    """
                    SELECT subscription_id, store, user_id, order_id, product_id, renews_to, state,
                           \(Self.utc("entitled_until")) AS entitled_until, \(Self.utc("expires_at")) AS expires_at,
                           auto_renew, ownership, environment, \(Self.utc("store_time")) AS store_time
                    FROM iap.subscriptions WHERE user_id = $1
                    ORDER BY created_at DESC, subscription_id
                    """,
                    [userID]
                )
                let periods = try session.execute(
                    """
                    SELECT d.subscription_id, d.transaction_id, d.order_id,
                           \(Self.utc("d.period_start")) AS period_start, \(Self.utc("d.period_end")) AS period_end,
                           \(Self.utc("d.granted_at")) AS granted_at, \(Self.utc("d.revoked_at")) AS revoked_at
                    FROM iap.deliveries d JOIN iap.subscriptions s ON s.subscription_id = d.subscription_id
                    WHERE s.user_id = $1
                    ORDER BY d.period_start, d.transaction_id
                    """,
                    [userID]
                )
                let history = try session.execute(
                    """
                    SELECT h.subscription_id, \(Self.utc("h.at")) AS at, h.state, h.product_id,
                           \(Self.utc("h.entitled_until")) AS entitled_until, h.auto_renew
                    FROM iap.subscription_history h JOIN iap.subscriptions s ON s.subscription_id = h.subscription_id
                    WHERE s.user_id = $1
                    ORDER BY h.id
                    """,
                    [userID]
                )
                return (subscriptions, periods, history)
            }
        }
        let periodRows = periods.namedRows
        let historyRows = history.namedRows
        return try subscriptions.namedRows.map { row in
            let id = try row.string("subscription_id")
            guard let store = Store(rawValue: try row.string("store")) else {
                throw PostgresError(kind: .query, message: "subscriptions: unknown store")
            }
            return SubscriptionSummary(
                subscriptionID: id,
                store: store,
                userID: try row.string("user_id"),
                orderID: row["order_id"],
                productID: try row.string("product_id"),
                renewsTo: row["renews_to"],
                state: try row.string("state"),
                entitledUntil: row["entitled_until"],
                expiresAt: row["expires_at"],
                autoRenew: row["auto_renew"] == "t",
                ownership: try row.string("ownership"),
                environment: try row.string("environment"),
                storeTime: row["store_time"],
                periods: try periodRows.filter { $0["subscription_id"] == id }.map { period in
                    SubscriptionSummary.Period(
                        transactionID: try period.string("transaction_id"),
                        orderID: try period.string("order_id"),
                        periodStart: period["period_start"],
                        periodEnd: period["period_end"],
                        grantedAt: period["granted_at"],
                        revokedAt: period["revoked_at"]
                    )
                },
                history: try historyRows.filter { $0["subscription_id"] == id }.map { change in
                    SubscriptionSummary.Change(
                        at: try change.string("at"),
                        state: try change.string("state"),
                        productID: try change.string("product_id"),
                        entitledUntil: change["entitled_until"],
                        autoRenew: change["auto_renew"] == "t"
                    )
                }
            )
        }
    }
}
