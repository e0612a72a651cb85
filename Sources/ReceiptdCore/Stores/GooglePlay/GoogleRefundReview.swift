import Foundation

/// The body of one `orders.reviewrefund` call: the request's token, the preference as Google takes it, whether
/// sample content was provided, and the consumption when it is known.
package struct GoogleRefundReview: Sendable, Equatable, Encodable {
    /// The notification's `pendingRefundToken`.
    package var pendingRefundToken: String
    /// `APPROVE`, `DECLINE` or `NEUTRAL`.
    package var refundPreference: String
    /// `RECEIPTD_SAMPLE_CONTENT_PROVIDED`.
    package var sampleContentProvided: Bool
    /// Thousandths of a percent consumed: what was answered, 0 for goods never granted, left out when unknown.
    package var consumptionPercentageMilliunits: Int?

    /// The review of `owed`.
    package init(_ owed: OwedRefundAnswer, sampleContentProvided: Bool) {
        pendingRefundToken = owed.requestID
        refundPreference = owed.preference.googleValue
        self.sampleContentProvided = sampleContentProvided
        consumptionPercentageMilliunits = owed.consumed ?? (owed.deliveredAndGranted ? nil : 0)
    }

    /// The JSON body, keys sorted.
    package var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, a bool and an int: this always encodes.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// What Google's answer to the call means: 2xx taken (Google keeps the first answer and takes later ones
    /// without a word); a timeout, 429, 5xx, or a credential refusal (401, 403: fixed by an operator within the
    /// day) is retried; any other 4xx is a refusal for good.
    package static func outcome(status: Int, message: String?) -> RefundAnswerOutcome {
        let reason = "Google Play orders.reviewrefund: HTTP \(status)" + (message.map { " (\($0))" } ?? "")
        switch status {
        case 200..<300: return .sent
        case 401, 403, 408, 429, 500...: return .retry(reason, notBefore: nil)
        default: return .refused(reason)
        }
    }
}
