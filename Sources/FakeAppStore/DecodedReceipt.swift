import Foundation

/// A synthetic receipt parsed once, with the parts of its answer already
/// serialized, so repeated calls only concatenate strings.
///
/// Parsing uses JSONSerialization rather than ``SyntheticReceipt`` so that
/// `in_app` and `latest_receipt_info` pass through verbatim, whatever their shape.
struct DecodedReceipt: Sendable {
    /// Apple status to answer once the environment is right.
    let status: Int
    /// Environment the receipt belongs to.
    let environment: RecordedRequest.Environment
    /// The bundle id as a JSON string literal, quotes included.
    let bundleIDLiteral: String
    /// `in_app` as JSON text (`[]` when absent).
    let inAppJSON: String
    /// `latest_receipt_info` as JSON text, when present.
    let latestReceiptInfoJSON: String?
    /// `pending_renewal_info` as JSON text, when present.
    let pendingRenewalInfoJSON: String?
    /// Whether an entry is an auto-renewable's (has `expires_date_ms`): Apple answers its subscription parts only
    /// to a call with the shared secret.
    let holdsAutoRenewables: Bool
    /// `is_retryable`, when present.
    let isRetryable: Bool?
    /// Extra wait for every call of this receipt.
    let delayMilliseconds: Int
    /// Per-call behaviour, indexed by call number.
    let script: [ScriptStep]

    /// Parses `receipt-data`; `nil` when it is not base64 of a JSON object (Apple's 21002).
    init?(receiptData: String) {
        guard let bytes = Data(base64Encoded: receiptData),
            let object = try? JSONSerialization.jsonObject(with: bytes),
            let fields = object as? [String: Any]
        else { return nil }
        status = fields["status"] as? Int ?? 0
        environment = fields["environment"] as? String == "Sandbox" ? .sandbox : .production
        bundleIDLiteral = Self.jsonText(fields["bundle_id"] as? String ?? SyntheticReceipt.defaultBundleID)
        inAppJSON = Self.jsonText(fields["in_app"] ?? [Any]())
        latestReceiptInfoJSON = fields["latest_receipt_info"].map(Self.jsonText)
        pendingRenewalInfoJSON = fields["pending_renewal_info"].map(Self.jsonText)
        holdsAutoRenewables = (inAppJSON + (latestReceiptInfoJSON ?? "")).contains("\"expires_date_ms\"")
        isRetryable = fields["is_retryable"] as? Bool
        delayMilliseconds = max(0, fields["delay_ms"] as? Int ?? 0)
        script = (fields["script"] as? [Any] ?? []).map(ScriptStep.init(jsonObject:))
    }

    /// Serializes a value that came out of JSONSerialization, so it cannot fail in practice.
    private static func jsonText(_ value: Any) -> String {
        let options: JSONSerialization.WritingOptions = [.fragmentsAllowed, .withoutEscapingSlashes]
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: options) else {
            return "null"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
