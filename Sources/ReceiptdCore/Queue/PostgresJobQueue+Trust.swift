extension PostgresJobQueue: TrustQueue {
    /// Writes the trust settings the database's triggers apply (`iap.set_trust_policy`).
    package func publishTrustPolicy(_ trust: TrustConfiguration) async throws {
        try await pool.execute(
            "SELECT iap.set_trust_policy($1, $2, $3)",
            [trust.initialApple.isTrusted, trust.initialGoogle.isTrusted, trust.restoreAfter]
        )
    }

    /// Grants provisionally through `iap.grant_provisional`, the error classes that mean the store failed
    /// (`ErrorClass.isStoreOutage`) counting as failures that wait for it.
    package func grantProvisional(_ trust: TrustConfiguration, receiptAPI: StoreAPI) async throws -> [ProvisionalGrant]
    {
        let outages = ErrorClass.allCases.filter(\.isStoreOutage).map(\.rawValue)
        return try await pool.execute(
            """
            SELECT order_id, user_id, store, product_id, quantity, cause
            FROM iap.grant_provisional(make_interval(secs => $1), $2, $3, $4::text[])
            """,
            [
                trust.provisionalAfter.seconds, trust.provisionalLimit, receiptAPI.rawValue,
                "{" + outages.joined(separator: ",") + "}",
            ]
        ).namedRows.map { row in
            guard let store = Store(rawValue: try row.string("store")),
                let cause = ProvisionalGrantCause(rawValue: try row.string("cause"))
            else {
                throw PostgresError(kind: .query, message: "grant_provisional: unknown store or cause")
            }
            return ProvisionalGrant(
                orderID: try row.string("order_id"),
                userID: try row.string("user_id"),
                store: store,
                productID: try row.string("product_id"),
                quantity: try row.int("quantity"),
                cause: cause
            )
        }
    }

    /// Provisional grants by state and untrusted players by store (`TrustFigures.query`).
    package func trustFigures() async throws -> TrustFigures {
        guard let row = try await pool.execute(TrustFigures.query).namedRows.first else { return TrustFigures() }
        return try TrustFigures(row: row)
    }
}
