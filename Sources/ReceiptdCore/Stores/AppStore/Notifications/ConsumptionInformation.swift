import Foundation

/// The body of one Send Consumption Information v2 answer, as receiptd fills it: the customer consented (only
/// consented requests are sent), no sample content, delivered when the game granted the purchase, and the
/// operator's refund preference.
package struct ConsumptionInformation: Sendable, Equatable {
    /// `DELIVERED` or `UNDELIVERED_OTHER`.
    package var deliveryStatus: String
    /// Milliunits consumed: sent only with `UNDELIVERED_OTHER` (0); Apple takes it only without `DELIVERED`.
    package var consumptionPercentage: Int?
    /// `DECLINE` or `GRANT_FULL`; nil leaves the field out (`APPLE_REFUND_PREFERENCE=none`).
    package var refundPreference: String?

    /// `DELIVERED` when the ledger delivered the transaction and the game granted it, otherwise
    /// `UNDELIVERED_OTHER` with `consumptionPercentage` 0.
    package init(deliveredAndGranted: Bool, refundPreference: RefundPreference) {
        deliveryStatus = deliveredAndGranted ? "DELIVERED" : "UNDELIVERED_OTHER"
        consumptionPercentage = deliveredAndGranted ? nil : 0
        self.refundPreference = refundPreference.appleValue
    }

    /// The JSON body, keys sorted.
    package var json: String {
        var fields = [
            "\"customerConsented\":true", "\"deliveryStatus\":\"\(deliveryStatus)\"", "\"sampleContentProvided\":false",
        ]
        if let consumptionPercentage { fields.append("\"consumptionPercentage\":\(consumptionPercentage)") }
        if let refundPreference { fields.append("\"refundPreference\":\"\(refundPreference)\"") }
        return "{" + fields.sorted().joined(separator: ",") + "}"
    }
}
