/// Where the `TrustKeeper` writes the trust settings and grants provisionally: `PostgresJobQueue` implements it.
package protocol TrustQueue: Sendable {
    /// Writes the trust settings the database's triggers apply (`iap.trust_policy`).
    func publishTrustPolicy(_ trust: TrustConfiguration) async throws
    /// Grants provisionally the due orders of trusted players (`iap.grant_provisional`) under `trust`'s settings,
    /// receipts being verified through `receiptAPI`; returns what it granted (nothing while another daemon grants).
    func grantProvisional(_ trust: TrustConfiguration, receiptAPI: StoreAPI) async throws -> [ProvisionalGrant]
    /// Provisional grants by state and untrusted players by store, for the gauges.
    func trustFigures() async throws -> TrustFigures
}

/// One order granted provisionally.
package struct ProvisionalGrant: Sendable, Equatable {
    /// The order.
    package var orderID: String
    /// Its player.
    package var userID: String
    /// The store its job waits for.
    package var store: Store
    /// What was granted.
    package var productID: String
    /// How many.
    package var quantity: Int
    /// Why.
    package var cause: ProvisionalGrantCause
}
