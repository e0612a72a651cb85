extension OperatorQueries {
    /// `iap.trust_of`: the level of `userID` in both stores, or in `store` only.
    package func trust(of userID: String, store: Store? = nil) async throws -> [UserTrust] {
        let rows = try await connection.execute(Self.trustOf, [userID, store?.rawValue])
        return try rows.namedRows.map { try UserTrust(row: $0, userID: userID) }
    }

    /// `iap.set_trust`: sets the level of `userID` in `store`, with `actor` (the operator's name) recorded as the
    /// reason, and returns the new level, both in one transaction. Throws `OperatorError.refused` when the
    /// database refuses the user id.
    package func setTrust(
        of userID: String,
        store: Store,
        to level: TrustLevel,
        actor: String
    ) async throws
        -> UserTrust
    {
        let rows = try await audited(.setTrust, target: "\(userID) \(store.rawValue)", orderID: nil) { session in
            try session.execute(
                "SELECT iap.set_trust($1, $2, $3, $4)",
                [userID, store.rawValue, level.isTrusted, actor]
            )
            return try session.execute(Self.trustOf, [userID, store.rawValue])
        }
        guard let row = rows.namedRows.first else {
            throw OperatorError.notFound("no trust level of \(userID) in \(store.rawValue)")
        }
        return try UserTrust(row: row, userID: userID)
    }

    /// The rows of `iap.trust_of($1)`, of store `$2` only unless it is NULL.
    static let trustOf = """
        SELECT store, trusted, streak, \(OperatorQueries.utc("changed_at")) AS changed_at, reason, order_id, recorded,
               unconfirmed_grants
        FROM iap.trust_of($1) WHERE $2::text IS NULL OR store = $2
        ORDER BY store
        """
}

extension UserTrust {
    /// Reads a row of `iap.trust_of`.
    init(row: QueryResult.Row, userID: String) throws {
        guard let store = Store(rawValue: try row.string("store")) else {
            throw PostgresError(kind: .query, message: "trust_of: unknown store")
        }
        let reason = row["reason"]
        self.init(
            userID: userID,
            store: store,
            level: TrustLevel(trusted: try row.bool("trusted")),
            streak: try row.int("streak"),
            changedAt: row["changed_at"],
            reason: reason,
            orderID: row["order_id"],
            initial: !(try row.bool("recorded")) || reason == "initial",
            unconfirmedGrants: try row.int("unconfirmed_grants")
        )
    }
}
