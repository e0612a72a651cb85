import Foundation

/// Turns a verifyReceipt body into an `AppleVerifyResponse`, accepting Apple's numbers as strings or as numbers.
package enum AppleResponseParser {
    /// Why a body is not a usable answer.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        /// A readable reason, safe for `last_error` (never the body's receipt data).
        package var description: String
    }

    /// Parses a body; throws `Failure` for anything that is not Apple's JSON.
    package static func parse(_ body: [UInt8]) throws(Failure) -> AppleVerifyResponse {
        guard String(validating: body, as: UTF8.self) != nil else {
            throw Failure(description: "answer is not valid UTF-8")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(body))
        } catch {
            throw Failure(description: "answer is not JSON: \(preview(body))")
        }
        guard let top = object as? [String: Any] else { throw Failure(description: "answer is JSON but not an object") }
        guard let status = FlexibleJSON.integer(top["status"]) else {
            throw Failure(description: "answer has no numeric status")
        }
        let receipt = (top["receipt"] as? [String: Any]).map { receipt in
            AppleVerifyResponse.Receipt(
                bundleID: FlexibleJSON.string(receipt["bundle_id"]),
                inApp: transactions(receipt["in_app"])
            )
        }
        return AppleVerifyResponse(
            status: Int(status),
            environment: FlexibleJSON.string(top["environment"]),
            isRetryable: FlexibleJSON.bool(top["is_retryable"] ?? top["is-retryable"]),
            receipt: receipt,
            latestReceiptInfo: transactions(top["latest_receipt_info"])
        )
    }

    private static func transactions(_ value: Any?) -> [VerifiedPurchase]? {
        guard let entries = value as? [Any] else { return nil }
        return entries.compactMap { entry -> VerifiedPurchase? in
            guard let fields = entry as? [String: Any] else { return nil }
            // Values the ledger cannot hold (an int quantity, a timestamptz date) are unreadable: such an
            // entry pays nothing, rather than failing the settle that writes it.
            let quantity: Int? =
                fields["quantity"] == nil
                ? 1
                : FlexibleJSON.integer(fields["quantity"]).flatMap {
                    (1...Int64(Int32.max)).contains($0) ? Int($0) : nil
                }
            let purchaseDate = FlexibleJSON.integer(fields["purchase_date_ms"]).flatMap {
                Self.storableDates.contains($0) ? $0 : nil
            }
            return VerifiedPurchase(
                transactionID: FlexibleJSON.string(fields["transaction_id"]) ?? "",
                originalTransactionID: FlexibleJSON.string(fields["original_transaction_id"]),
                productID: FlexibleJSON.string(fields["product_id"]) ?? "",
                quantity: quantity,
                purchaseDateMilliseconds: purchaseDate,
                isCancelled: FlexibleJSON.isPresent(fields["cancellation_date_ms"])
                    || FlexibleJSON.isPresent(fields["cancellation_date"]),
                // StoreKit 2 purchases carry their account token in receipts too.
                appAccountToken: FlexibleJSON.string(fields["app_account_token"]).flatMap(UUID.init(uuidString:))
            )
        }
    }

    /// Purchase dates from 1970 to the end of year 9999, in milliseconds.
    private static let storableDates: ClosedRange<Int64> = 0...253_402_300_799_999

    /// The first characters of a body, printable ASCII only, for an error message.
    private static func preview(_ body: [UInt8]) -> String {
        let printable = body.prefix(60).map { $0 >= 0x20 && $0 < 0x7F ? Character(UnicodeScalar($0)) : "." }
        return "\"\(String(printable))\"" + (body.count > 60 ? "…" : "")
    }
}
