import Foundation

/// Turns a verifyReceipt body into an `AppleVerifyResponse`, accepting Apple's numbers as strings or as numbers.
package enum AppleResponseParser {
    /// Why a body is not a usable answer.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        /// A readable reason, safe for `last_error` (never the body's receipt data).
        package var description: String
    }

    /// Parses a body; throws `Failure` for anything that is not Apple's JSON. An auto-renewable's entries (those with
    /// `expires_date_ms`) carry their subscription as the entry and `pending_renewal_info` say it is at `now`.
    package static func parse(_ body: [UInt8], now: Date = Date()) throws(Failure) -> AppleVerifyResponse {
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
        let receiptFields = top["receipt"] as? [String: Any]
        let environment = FlexibleJSON.string(top["environment"])
        // What the answer says is as of the request (`receipt.request_date_ms`), else as of now.
        let asOf =
            FlexibleJSON.integer(receiptFields?["request_date_ms"]).flatMap { storableDates.contains($0) ? $0 : nil }
            .map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? now
        let context = SubscriptionContext(
            environment: environment ?? StoreEnvironment.production.rawValue,
            asOf: asOf,
            now: now,
            renewals: renewals(top["pending_renewal_info"], asOf: asOf)
        )
        let receipt = receiptFields.map { receipt in
            AppleVerifyResponse.Receipt(
                bundleID: FlexibleJSON.string(receipt["bundle_id"]),
                inApp: transactions(receipt["in_app"], context)
            )
        }
        return AppleVerifyResponse(
            status: Int(status),
            environment: environment,
            isRetryable: FlexibleJSON.bool(top["is_retryable"] ?? top["is-retryable"]),
            receipt: receipt,
            latestReceiptInfo: transactions(top["latest_receipt_info"], context)
        )
    }

    /// What an answer says of its subscriptions beside their entries.
    private struct SubscriptionContext {
        var environment: String
        var asOf: Date
        var now: Date
        /// `pending_renewal_info` by `original_transaction_id`.
        var renewals: [String: AppleRenewalInfo]
    }

    /// `pending_renewal_info`: what happens at the end of each subscription's current period.
    private static func renewals(_ value: Any?, asOf: Date) -> [String: AppleRenewalInfo] {
        var renewals: [String: AppleRenewalInfo] = [:]
        for case let fields as [String: Any] in (value as? [Any]) ?? [] {
            guard let original = FlexibleJSON.string(fields["original_transaction_id"]), !original.isEmpty else {
                continue
            }
            renewals[original] = AppleRenewalInfo(
                originalTransactionID: original,
                productID: FlexibleJSON.string(fields["product_id"]),
                autoRenewProductID: FlexibleJSON.string(fields["auto_renew_product_id"]),
                autoRenews: FlexibleJSON.bool(fields["auto_renew_status"]) ?? true,
                isInBillingRetry: FlexibleJSON.bool(fields["is_in_billing_retry_period"]) ?? false,
                gracePeriodExpires: FlexibleJSON.integer(fields["grace_period_expires_date_ms"]).map {
                    Date(timeIntervalSince1970: Double($0) / 1000)
                },
                expirationIntent: FlexibleJSON.integer(fields["expiration_intent"]).map { Int(clamping: $0) },
                signedDate: asOf
            )
        }
        return renewals
    }

    private static func transactions(_ value: Any?, _ context: SubscriptionContext) -> [VerifiedPurchase]? {
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
            var purchase = VerifiedPurchase(
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
            if let ownership = FlexibleJSON.string(fields["in_app_ownership_type"]), !ownership.isEmpty {
                purchase.details.ownership = ownership.lowercased()
            }
            if let expires = FlexibleJSON.integer(fields["expires_date_ms"]), storableDates.contains(expires) {
                subscribe(&purchase, expires: expires, fields, context)
            }
            return purchase
        }
    }

    /// An auto-renewable's entry: its kind, a free trial's price of nothing, and the subscription as the entry and
    /// its `pending_renewal_info` say.
    private static func subscribe(
        _ purchase: inout VerifiedPurchase,
        expires: Int64,
        _ fields: [String: Any],
        _ context: SubscriptionContext
    ) {
        purchase.details.storeKind = .autoRenewable
        if FlexibleJSON.bool(fields["is_trial_period"]) == true { purchase.details.priceMilliunits = 0 }
        let period = AppleSubscriptionReading.Period(
            transactionID: purchase.transactionID,
            originalTransactionID: purchase.originalTransactionID,
            productID: purchase.productID,
            terms: SignedTransaction.SubscriptionTerms(
                expiresDateMilliseconds: expires,
                groupID: FlexibleJSON.string(fields["subscription_group_identifier"]),
                webOrderLineItemID: FlexibleJSON.string(fields["web_order_line_item_id"]),
                isUpgraded: FlexibleJSON.bool(fields["is_upgraded"]) ?? false,
                reason: nil
            ),
            isRevoked: purchase.isCancelled,
            environment: context.environment,
            ownership: purchase.details.isFamilyShared ? "family_shared" : "purchased",
            storeTime: context.asOf
        )
        purchase.subscription = AppleSubscriptionReading.snapshot(
            of: period,
            renewal: context.renewals[purchase.originalTransactionID],
            now: context.now
        )
    }

    /// Purchase dates from 1970 to the end of year 9999, in milliseconds.
    private static let storableDates: ClosedRange<Int64> = 0...253_402_300_799_999

    /// The first characters of a body, printable ASCII only, for an error message.
    private static func preview(_ body: [UInt8]) -> String {
        let printable = body.prefix(60).map { $0 >= 0x20 && $0 < 0x7F ? Character(UnicodeScalar($0)) : "." }
        return "\"\(String(printable))\"" + (body.count > 60 ? "…" : "")
    }
}
