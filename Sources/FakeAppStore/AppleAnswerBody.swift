/// Builds Apple's verifyReceipt JSON answers by concatenation: every variable
/// part is a number, a fixed word, or JSON text serialized when the receipt was parsed.
enum AppleAnswerBody {
    /// `{"status":N}`, with the environment and `is_retryable` when given.
    static func status(
        _ status: Int,
        environment: RecordedRequest.Environment? = nil,
        isRetryable: Bool? = nil
    ) -> String {
        var body = "{\"status\":\(status)"
        if let environment {
            body += ",\"environment\":\"\(environment.rawValue)\""
        }
        if let isRetryable {
            body += ",\"is_retryable\":\(isRetryable)"
        }
        return body + "}"
    }

    /// The status-0 answer with the receipt and its purchases; `latest_receipt_info` and `pending_renewal_info` of a
    /// receipt holding auto-renewables only `withSharedSecret`.
    static func verified(
        _ receipt: DecodedReceipt,
        environment: RecordedRequest.Environment,
        nowMilliseconds: Int64,
        withSharedSecret: Bool = true
    ) -> String {
        var body = "{\"status\":0,\"environment\":\"\(environment.rawValue)\",\"receipt\":{"
        body += "\"bundle_id\":\(receipt.bundleIDLiteral),\"application_version\":\"1\","
        body += "\"receipt_creation_date_ms\":\"\(nowMilliseconds)\","
        body += "\"request_date_ms\":\"\(nowMilliseconds)\",\"in_app\":\(receipt.inAppJSON)}"
        let subscriptionParts = withSharedSecret || !receipt.holdsAutoRenewables
        if let latest = receipt.latestReceiptInfoJSON, subscriptionParts {
            body += ",\"latest_receipt_info\":\(latest)"
        }
        if let pending = receipt.pendingRenewalInfoJSON, subscriptionParts {
            body += ",\"pending_renewal_info\":\(pending)"
        }
        if let isRetryable = receipt.isRetryable {
            body += ",\"is_retryable\":\(isRetryable)"
        }
        return body + "}"
    }
}
