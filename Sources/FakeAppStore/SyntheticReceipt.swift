import Foundation

/// A receipt the stand-in understands, and a typed builder for it.
///
/// `receipt-data` is standard base64 of a UTF-8 JSON object. Every key is
/// optional and unknown keys are ignored:
///
/// ```
/// {
///   "status": 0,                  // Apple status once the environment is right (default 0)
///   "environment": "Production",  // or "Sandbox"; a mismatch with the path answers 21007 / 21008
///   "bundle_id": "com.example.game",
///   "in_app": [ ... ],            // copied verbatim as receipt.in_app (any JSON)
///   "latest_receipt_info": [...], // copied verbatim to the top level when present
///   "pending_renewal_info": [...], // likewise; both left out for a call without `password` when an
///                                  // entry is an auto-renewable's (has `expires_date_ms`)
///   "is_retryable": true,         // copied to the top level when present
///   "delay_ms": 0,                // extra wait for every call of this receipt
///   "script": [ step, ... ]       // call n (0-based, per receipt-data string, both paths) uses script[n]
/// }
/// ```
///
/// A step (see ``ScriptStep``) is `{"http":503,"retry_after":"2"}`,
/// `{"status":21005,"is_retryable":false}`, `{"raw":"<html>down</html>"}`,
/// `{"reset":true}`, optionally with `"delay_ms"`; other steps mean the normal answer.
///
/// Each call is checked in this order: the configured reset/503/21005/timeout draws,
/// an unparsable body (21000) or receipt (21002), the script step, the shared
/// secret (21004), the environment (21007 on the production path for a
/// Sandbox receipt, or one the configured `sandboxRate` made a sandbox one;
/// 21008 the other way round), then the receipt's `status`.
/// A status-0 answer is
/// `{"status":0,"environment":…,"receipt":{"bundle_id":…,"application_version":"1",
/// "receipt_creation_date_ms":…,"request_date_ms":…,"in_app":[…]},…}`;
/// the receipt's non-zero status and 21004 are `{"status":N,"environment":…}`;
/// 21000, 21002, 21007, 21008, 21005 and scripted statuses are `{"status":N}`
/// (plus `is_retryable` when the receipt or step gives it). The wait before an
/// answer is the configured latency plus the receipt's and the step's `delay_ms`.
package struct SyntheticReceipt: Codable, Sendable, Equatable {
    /// The bundle id of a receipt that names none: the app the demo, the tools and the tests configure.
    package static let defaultBundleID = "com.example.game"

    /// Apple status to answer once the environment is right; `nil` means 0.
    package var status: Int?
    /// `"Production"` or `"Sandbox"`; `nil` means Production.
    package var environment: String?
    /// Bundle identifier; `nil` means `com.example.game`.
    package var bundleID: String?
    /// Purchases answered as `receipt.in_app`.
    package var inApp: [SyntheticTransaction]?
    /// Purchases answered as the top-level `latest_receipt_info`.
    package var latestReceiptInfo: [SyntheticTransaction]?
    /// Answered as the top-level `pending_renewal_info`.
    package var pendingRenewalInfo: [SyntheticRenewalInfo]?
    /// Answered as the top-level `is_retryable`.
    package var isRetryable: Bool?
    /// Extra wait, in milliseconds, before every answer for this receipt.
    package var delayMilliseconds: Int?
    /// Per-call behaviour; calls past its end get the normal answer.
    package var script: [ScriptStep]?

    /// Creates a receipt; everything left `nil` takes the stand-in's default.
    package init(
        status: Int? = nil,
        environment: String? = nil,
        bundleID: String? = nil,
        inApp: [SyntheticTransaction]? = nil,
        latestReceiptInfo: [SyntheticTransaction]? = nil,
        pendingRenewalInfo: [SyntheticRenewalInfo]? = nil,
        isRetryable: Bool? = nil,
        delayMilliseconds: Int? = nil,
        script: [ScriptStep]? = nil
    ) {
        self.status = status
        self.environment = environment
        self.bundleID = bundleID
        self.inApp = inApp
        self.latestReceiptInfo = latestReceiptInfo
        self.pendingRenewalInfo = pendingRenewalInfo
        self.isRetryable = isRetryable
        self.delayMilliseconds = delayMilliseconds
        self.script = script
    }

    /// The `receipt-data` string for this receipt: base64 of its JSON.
    ///
    /// Keys are sorted, so equal receipts give equal strings (scripts count calls per string).
    package func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(self).base64EncodedString()
        } catch {
            // Only strings, integers and booleans: encoding cannot fail.
            preconditionFailure("SyntheticReceipt failed to encode: \(error)")
        }
    }

    private enum CodingKeys: String, CodingKey {
        case status
        case environment
        case bundleID = "bundle_id"
        case inApp = "in_app"
        case latestReceiptInfo = "latest_receipt_info"
        case pendingRenewalInfo = "pending_renewal_info"
        case isRetryable = "is_retryable"
        case delayMilliseconds = "delay_ms"
        case script
    }
}
