import Foundation

/// The fields of a StoreKit 2 signed transaction's payload (`JWSTransactionDecodedPayload`) that receiptd acts on.
package struct SignedTransaction: Sendable, Equatable {
    /// Why a payload cannot be used.
    package struct FormatError: Error, CustomStringConvertible {
        /// What is wrong with it.
        package var description: String
    }

    /// `transactionId`.
    package var transactionID: String
    /// `originalTransactionId`, or the transaction's own id when absent.
    package var originalTransactionID: String
    /// `bundleId`.
    package var bundleID: String
    /// `productId`.
    package var productID: String
    /// `quantity`; 1 when absent, `nil` when not a positive integer the ledger can hold.
    package var quantity: Int?
    /// `purchaseDate`, milliseconds since 1970; `nil` when outside what the ledger can hold.
    package var purchaseDateMilliseconds: Int64?
    /// `revocationDate`, when Apple refunded or revoked the purchase.
    package var revocationDateMilliseconds: Int64?
    /// `appAccountToken`, when the app set one.
    package var appAccountToken: UUID?
    /// `environment` as signed: `Production`, `Sandbox`, or one the App Store does not sign (`Xcode`, `LocalTesting`).
    package var environment: String
    /// `signedDate`: when the App Store signed it, the instant the chain must be valid at.
    package var signedDate: Date
    /// `type`, `inAppOwnershipType`, `price`, `currency`, `offerType` and `offerIdentifier`.
    package var details: PurchaseDetails
    /// An auto-renewable's period: `expiresDate`, `subscriptionGroupIdentifier`, `webOrderLineItemId`,
    /// `isUpgraded` and `transactionReason`; nil for any other product.
    package var period: SubscriptionTerms?

    /// The subscription fields of an auto-renewable's transaction.
    package struct SubscriptionTerms: Sendable, Equatable {
        /// `expiresDate`: the end of the period it paid, milliseconds since 1970.
        package var expiresDateMilliseconds: Int64
        /// `subscriptionGroupIdentifier`.
        package var groupID: String?
        /// `webOrderLineItemId`: the period's id, the same on every transaction of that period.
        package var webOrderLineItemID: String?
        /// `isUpgraded`: an upgrade replaced this transaction; it says nothing of the subscription now.
        package var isUpgraded: Bool
        /// `transactionReason`: `PURCHASE` or `RENEWAL`.
        package var reason: String?
    }

    /// Reads a payload.
    package init(json: Data) throws(FormatError) {
        guard let object = try? JSONSerialization.jsonObject(with: json), let fields = object as? [String: Any] else {
            throw FormatError(description: "not a JSON object")
        }
        func string(_ key: String) throws(FormatError) -> String {
            guard let value = fields[key] as? String, !value.isEmpty else {
                throw FormatError(description: "\(key) is missing")
            }
            return value
        }
        func milliseconds(_ key: String) -> Int64? {
            FlexibleJSON.integer(fields[key]).flatMap { Self.storableDates.contains($0) ? $0 : nil }
        }
        transactionID = try string("transactionId")
        originalTransactionID = (fields["originalTransactionId"] as? String) ?? transactionID
        bundleID = try string("bundleId")
        productID = try string("productId")
        environment = try string("environment")
        guard let signed = milliseconds("signedDate") else { throw FormatError(description: "signedDate is missing") }
        signedDate = Date(timeIntervalSince1970: Double(signed) / 1000)
        purchaseDateMilliseconds = milliseconds("purchaseDate")
        // A revocation date we cannot read is still a revocation.
        revocationDateMilliseconds =
            FlexibleJSON.isPresent(fields["revocationDate"]) ? milliseconds("revocationDate") ?? 0 : nil
        quantity =
            fields["quantity"] == nil
            ? 1
            : FlexibleJSON.integer(fields["quantity"]).flatMap { (1...Int64(Int32.max)).contains($0) ? Int($0) : nil }
        appAccountToken = (fields["appAccountToken"] as? String).flatMap(UUID.init(uuidString:))
        details = PurchaseDetails(
            storeKind: (fields["type"] as? String).flatMap(ProductKind.init(appleType:)),
            ownership: (fields["inAppOwnershipType"] as? String).flatMap { $0.isEmpty ? nil : $0.lowercased() },
            priceMilliunits: FlexibleJSON.integer(fields["price"]),
            currency: PurchaseDetails.currencyCode(fields["currency"] as? String),
            offerType: FlexibleJSON.integer(fields["offerType"]).map(PurchaseDetails.appleOfferType),
            offerID: (fields["offerIdentifier"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        )
        period = milliseconds("expiresDate").map { expires in
            SubscriptionTerms(
                expiresDateMilliseconds: expires,
                groupID: FlexibleJSON.string(fields["subscriptionGroupIdentifier"]),
                webOrderLineItemID: FlexibleJSON.string(fields["webOrderLineItemId"]),
                isUpgraded: FlexibleJSON.bool(fields["isUpgraded"]) ?? false,
                reason: fields["transactionReason"] as? String
            )
        }
    }

    /// The store-neutral purchase the outcome rules take.
    package var purchase: VerifiedPurchase {
        var purchase = VerifiedPurchase(
            transactionID: transactionID,
            originalTransactionID: originalTransactionID,
            productID: productID,
            quantity: quantity,
            purchaseDateMilliseconds: purchaseDateMilliseconds,
            isCancelled: revocationDateMilliseconds != nil,
            appAccountToken: appAccountToken
        )
        purchase.details = details
        purchase.subscription = AppleSubscriptionReading.snapshot(of: self, now: Date())
        purchase.isRenewal = purchase.subscription != nil && period?.reason == "RENEWAL"
        return purchase
    }

    /// Purchase dates from 1970 to the end of year 9999, in milliseconds.
    private static let storableDates: ClosedRange<Int64> = 0...253_402_300_799_999
}
