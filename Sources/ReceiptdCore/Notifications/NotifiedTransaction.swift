import Foundation

/// The fields processing reads from a notification's verified transaction (the payload's `"transaction"`, with
/// Apple's keys).
package struct NotifiedTransaction: Sendable, Equatable {
    /// `transactionId`.
    package var transactionID: String
    /// `originalTransactionId`, or the transaction's own id when absent.
    package var originalTransactionID: String
    /// `productId`.
    package var productID: String?
    /// `quantity`, 1 when absent.
    package var quantity: Int
    /// `purchaseDate` in milliseconds since 1970.
    package var purchaseDateMilliseconds: Int64?
    /// `appAccountToken`: the account that started the purchase.
    package var appAccountToken: UUID?
    /// `revocationDate` in milliseconds since 1970.
    package var revocationDateMilliseconds: Int64?
    /// `revocationReason`: 0 other, 1 an issue in the app.
    package var revocationReason: Int?
    /// `revocationType`: `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`.
    package var revocationType: String?
    /// `revocationPercentage`, in thousandths of a percent, of a prorated refund.
    package var revocationPercentage: Int?
    /// `environment`: `Production` or `Sandbox`.
    package var environment: String?

    /// Creates a transaction from decoded values.
    package init(
        transactionID: String,
        originalTransactionID: String? = nil,
        productID: String? = nil,
        quantity: Int = 1,
        purchaseDateMilliseconds: Int64? = nil,
        appAccountToken: UUID? = nil,
        revocationDateMilliseconds: Int64? = nil,
        revocationReason: Int? = nil,
        revocationType: String? = nil,
        revocationPercentage: Int? = nil,
        environment: String? = nil
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID ?? transactionID
        self.productID = productID
        self.quantity = quantity
        self.purchaseDateMilliseconds = purchaseDateMilliseconds
        self.appAccountToken = appAccountToken
        self.revocationDateMilliseconds = revocationDateMilliseconds
        self.revocationReason = revocationReason
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.environment = environment
    }

    /// Reads a payload's `"transaction"` object; a `NotificationPayloadError` when it is not readable (no
    /// `transactionId`, a token that is not a UUID).
    init(fields: [String: Any]) throws {
        guard let id = Self.text(fields["transactionId"]), !id.isEmpty else {
            throw NotificationPayloadError(reason: "payload.transaction has no transactionId")
        }
        let token: UUID?
        if let value = fields["appAccountToken"], !(value is NSNull) {
            guard let text = value as? String, let uuid = UUID(uuidString: text) else {
                throw NotificationPayloadError(reason: "payload.transaction.appAccountToken is not a UUID")
            }
            token = uuid
        } else {
            token = nil
        }
        self.init(
            transactionID: id,
            originalTransactionID: Self.text(fields["originalTransactionId"]),
            productID: fields["productId"] as? String,
            quantity: Self.integer(fields["quantity"]).map { Int($0) } ?? 1,
            purchaseDateMilliseconds: Self.integer(fields["purchaseDate"]),
            appAccountToken: token,
            revocationDateMilliseconds: Self.integer(fields["revocationDate"]),
            revocationReason: Self.integer(fields["revocationReason"]).map { Int($0) },
            revocationType: fields["revocationType"] as? String,
            revocationPercentage: Self.integer(fields["revocationPercentage"]).map { Int($0) },
            environment: fields["environment"] as? String
        )
    }

    /// A string, or an integral number written out (ids are strings in Apple's JSON, but tolerate numbers).
    private static func text(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let number = integer(value) { return String(number) }
        return nil
    }

    private static func integer(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, abs(double) < 9.2e18 else { return nil }
        return number.int64Value
    }
}
