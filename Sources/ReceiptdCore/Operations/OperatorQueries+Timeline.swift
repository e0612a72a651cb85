extension OperatorQueries {
    /// The order page's data: `show`'s detail of the order `orderID` names (an order id, or a ledger id of one of
    /// its deliveries), its status, when the game granted each ledger row, and the operators' actions on it, all
    /// read in one read-only snapshot. Throws `OperatorError.notFound` for an unknown order.
    package func timeline(orderID argument: String) async throws -> OrderTimeline {
        var timeline = try await connection.withSession { session in
            try session.transaction { session in
                try session.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                let detail = try Self.orderDetail(argument, in: session)
                let orderID = detail.order.orderID
                let status =
                    try session.execute("SELECT status::text AS status FROM iap.orders WHERE order_id = $1", [orderID])
                    .first?.string("status") ?? ""
                let granted = try session.execute(
                    """
                    SELECT transaction_id, \(Self.utc("granted_at")) AS granted_at
                    FROM iap.deliveries WHERE order_id = $1 AND granted_at IS NOT NULL
                    """,
                    [orderID]
                ).namedRows
                let actions = try session.execute(
                    """
                    SELECT \(Self.utc("a.at")) AS at, a.actor, a.action, a.target, a.result, a.session_user
                    FROM iap.operator_actions a WHERE a.order_id = $1 ORDER BY a.at, a.id
                    """,
                    [orderID]
                ).namedRows
                return OrderTimeline(
                    detail: detail,
                    status: status,
                    grantedAt: Dictionary(
                        try granted.map { (try $0.string("transaction_id"), try $0.string("granted_at")) },
                        uniquingKeysWith: { first, _ in first }
                    ),
                    actions: try actions.map { row in
                        OperatorActionRecord(
                            at: try row.string("at"),
                            actor: try row.string("actor"),
                            action: try row.string("action"),
                            target: try row.string("target"),
                            result: try row.string("result"),
                            sessionUser: try row.string("session_user")
                        )
                    }
                )
            }
        }
        timeline.detail.subscriptions = try await subscriptions(of: timeline.detail.order)
        return timeline
    }
}
