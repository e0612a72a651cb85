/// Why an order was granted provisionally (`iap.provisional_grants.cause`).
package enum ProvisionalGrantCause: String, Sendable, Equatable, CaseIterable, Codable {
    /// Its job had failed for longer than `RECEIPTD_PROVISIONAL_AFTER` since the input arrived.
    case storeFailing = "store_failing"
    /// A daemon's circuit breaker had paused the store API its job needs.
    case breakerOpen = "breaker_open"
}
