import Foundation

/// The body of one Send Consumption Information v2 answer: the customer consented (only consented requests are
/// sent), whether the goods were delivered, how much was consumed, sample content, and the refund preference.
package struct ConsumptionInformation: Sendable, Equatable {
    /// `DELIVERED` or `UNDELIVERED_OTHER`.
    package var deliveryStatus: String
    /// Milliunits consumed: what was reported for delivered goods, 0 for goods not delivered, never for an
    /// auto-renewable subscription.
    package var consumptionPercentage: Int?
    /// `DECLINE`, `GRANT_FULL` or `GRANT_PRORATED`; nil leaves the field out.
    package var refundPreference: String?
    /// `sampleContentProvided` (`RECEIPTD_SAMPLE_CONTENT_PROVIDED`).
    package var sampleContentProvided: Bool

    /// `DELIVERED` when the ledger delivered the transaction and the game granted it, otherwise
    /// `UNDELIVERED_OTHER` with `consumptionPercentage` 0; `preference` as Apple takes it for a product of `kind`.
    package init(
        deliveredAndGranted: Bool,
        kind: ProductKind? = nil,
        consumed: Int? = nil,
        preference: RefundPreference,
        sampleContentProvided: Bool = false
    ) {
        deliveryStatus = deliveredAndGranted ? "DELIVERED" : "UNDELIVERED_OTHER"
        consumptionPercentage = kind == .autoRenewable ? nil : deliveredAndGranted ? consumed : 0
        refundPreference = preference.appleValue(kind: kind)
        self.sampleContentProvided = sampleContentProvided
    }

    /// The JSON body, keys sorted.
    package var json: String {
        var fields = [
            "\"customerConsented\":true", "\"deliveryStatus\":\"\(deliveryStatus)\"",
            "\"sampleContentProvided\":\(sampleContentProvided)",
        ]
        if let consumptionPercentage { fields.append("\"consumptionPercentage\":\(consumptionPercentage)") }
        if let refundPreference { fields.append("\"refundPreference\":\"\(refundPreference)\"") }
        return "{" + fields.sorted().joined(separator: ",") + "}"
    }
}
