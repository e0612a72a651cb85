/// The trust levels at a glance, as `receiptd status` and the daemon's gauges show them: provisional grants
/// unconfirmed now, confirmed and refuted in the last 24 hours, and untrusted players by store.
package struct TrustFigures: Sendable, Codable, Equatable {
    /// Provisional grants by state (`iap.provisional_grants`).
    package struct Grants: Sendable, Codable, Equatable {
        /// Granted and not yet confirmed or refuted, now.
        package var unconfirmed = 0
        /// Confirmed (a transaction paid the order) in the last 24 hours.
        package var confirmedLastDay = 0
        /// Refuted (the order ended unpaid, the grant is handed back) in the last 24 hours.
        package var refutedLastDay = 0
    }

    /// Rows of `iap.user_trust` with `trusted = false`, by store. Players without a row, at an untrusted initial
    /// level (Google's by default), are not counted.
    package struct UntrustedUsers: Sendable, Codable, Equatable {
        /// Untrusted in the App Store.
        package var apple = 0
        /// Untrusted in Google Play.
        package var google = 0

        /// The count of `store`.
        package subscript(store: Store) -> Int {
            switch store {
            case .apple: apple
            case .google: google
            }
        }
    }

    /// Provisional grants by state.
    package var provisionalGrants = Grants()
    /// Untrusted players by store.
    package var untrustedUsers = UntrustedUsers()

    /// No grants, no untrusted players.
    package init() {}

    /// The figures in one row; the partial indexes of migration 12 keep both counts small reads.
    static let query = """
        SELECT count(*) FILTER (WHERE state = 'unconfirmed') AS unconfirmed,
               count(*) FILTER (WHERE state = 'confirmed' AND resolved_at > now() - interval '24 hours') AS confirmed,
               count(*) FILTER (WHERE state = 'refuted' AND resolved_at > now() - interval '24 hours') AS refuted,
               (SELECT count(*) FROM iap.user_trust WHERE store = 'apple' AND NOT trusted) AS untrusted_apple,
               (SELECT count(*) FROM iap.user_trust WHERE store = 'google' AND NOT trusted) AS untrusted_google
        FROM iap.provisional_grants
        WHERE state = 'unconfirmed' OR resolved_at > now() - interval '24 hours'
        """

    /// Reads the row of `query`.
    init(row: QueryResult.Row) throws {
        provisionalGrants = Grants(
            unconfirmed: try row.int("unconfirmed"),
            confirmedLastDay: try row.int("confirmed"),
            refutedLastDay: try row.int("refuted")
        )
        untrustedUsers = UntrustedUsers(apple: try row.int("untrusted_apple"), google: try row.int("untrusted_google"))
    }
}
