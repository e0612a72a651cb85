import Foundation

/// The decoded payload of a StoreKit 2 signed transaction, with the JSON keys of
/// Apple's `JWSTransactionDecodedPayload` (dates are milliseconds since 1970).
///
/// Only the fields receiptd reads are modelled. Decoding is lenient the same way
/// the memberwise initializer is: only `transactionId` and `productId` are required,
/// so tools in other processes can post short payloads to `/fake/transactions`.
package struct SignedTransactionPayload: Codable, Sendable, Equatable, SortedJSONPayload {
    /// This transaction's id.
    package var transactionId: String
    /// The id of the purchase this transaction renews or restores; itself for a first purchase.
    package var originalTransactionId: String
    /// The app's bundle identifier.
    package var bundleId: String
    /// The in-app product's identifier.
    package var productId: String
    /// When the App Store charged the purchase, in milliseconds since 1970.
    package var purchaseDate: Int64
    /// When the original purchase was made, in milliseconds since 1970.
    package var originalPurchaseDate: Int64
    /// Number of items bought.
    package var quantity: Int
    /// `Consumable`, `Non-Consumable`, `Auto-Renewable Subscription` or `Non-Renewing Subscription`.
    package var type: String
    /// `PURCHASED` or `FAMILY_SHARED`.
    package var inAppOwnershipType: String
    /// When the App Store signed the JWS, in milliseconds since 1970; the stand-in sets it when answering.
    package var signedDate: Int64
    /// `Production` or `Sandbox`.
    package var environment: String
    /// The UUID the app attached to the purchase, lowercase.
    package var appAccountToken: String?
    /// When the App Store refunded or revoked the purchase, in milliseconds since 1970.
    package var revocationDate: Int64?
    /// Why it was revoked: 0 other, 1 an issue in the app.
    package var revocationReason: Int?
    /// `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`.
    package var revocationType: String?
    /// A prorated refund's share, in thousandths of a percent (50000 is half).
    package var revocationPercentage: Int?
    /// `PURCHASE` or `RENEWAL`.
    package var transactionReason: String
    /// The App Store country code of the buyer.
    package var storefront: String
    /// The transaction's total for its quantity, after any offer, in thousandths of the currency's unit.
    package var price: Int64?
    /// The price's ISO 4217 code.
    package var currency: String?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    package var offerType: Int?
    /// The offer's identifier (an offer code's reference name, a promotional offer's id).
    package var offerIdentifier: String?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT` or `ONE_TIME`.
    package var offerDiscountType: String?
    /// An auto-renewable's period end, in milliseconds since 1970.
    package var expiresDate: Int64?
    /// An auto-renewable's subscription group.
    package var subscriptionGroupIdentifier: String?
    /// The period's id, the same on every transaction of the period.
    package var webOrderLineItemId: String?
    /// True on a transaction an upgrade replaced.
    package var isUpgraded: Bool?

    /// Creates a payload; a first, production, one-item consumable purchase made now unless told otherwise.
    ///
    /// `originalTransactionId` defaults to `transactionId` and `originalPurchaseDate` to `purchaseDate`.
    package init(
        transactionId: String,
        originalTransactionId: String? = nil,
        bundleId: String = SyntheticReceipt.defaultBundleID,
        productId: String,
        purchaseDate: Int64 = SignedTransactionPayload.nowMilliseconds(),
        originalPurchaseDate: Int64? = nil,
        quantity: Int = 1,
        type: String = "Consumable",
        inAppOwnershipType: String = "PURCHASED",
        signedDate: Int64 = SignedTransactionPayload.nowMilliseconds(),
        environment: String = "Production",
        appAccountToken: String? = nil,
        revocationDate: Int64? = nil,
        revocationReason: Int? = nil,
        revocationType: String? = nil,
        revocationPercentage: Int? = nil,
        transactionReason: String = "PURCHASE",
        storefront: String = "USA",
        price: Int64? = nil,
        currency: String? = nil,
        offerType: Int? = nil,
        offerIdentifier: String? = nil,
        offerDiscountType: String? = nil,
        expiresDate: Int64? = nil,
        subscriptionGroupIdentifier: String? = nil,
        webOrderLineItemId: String? = nil,
        isUpgraded: Bool? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId ?? transactionId
        self.bundleId = bundleId
        self.productId = productId
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate ?? purchaseDate
        self.quantity = quantity
        self.type = type
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.environment = environment
        self.appAccountToken = appAccountToken
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.transactionReason = transactionReason
        self.storefront = storefront
        self.price = price
        self.currency = currency
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.expiresDate = expiresDate
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.webOrderLineItemId = webOrderLineItemId
        self.isUpgraded = isUpgraded
    }

    /// Decodes a payload, filling absent fields as the memberwise initializer does.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let now = Self.nowMilliseconds()
        let purchaseDate = try container.decodeIfPresent(Int64.self, forKey: .purchaseDate) ?? now
        self.init(
            transactionId: try container.decode(String.self, forKey: .transactionId),
            originalTransactionId: try container.decodeIfPresent(String.self, forKey: .originalTransactionId),
            bundleId: try container.decodeIfPresent(String.self, forKey: .bundleId) ?? SyntheticReceipt.defaultBundleID,
            productId: try container.decode(String.self, forKey: .productId),
            purchaseDate: purchaseDate,
            originalPurchaseDate: try container.decodeIfPresent(Int64.self, forKey: .originalPurchaseDate),
            quantity: try container.decodeIfPresent(Int.self, forKey: .quantity) ?? 1,
            type: try container.decodeIfPresent(String.self, forKey: .type) ?? "Consumable",
            inAppOwnershipType: try container.decodeIfPresent(String.self, forKey: .inAppOwnershipType) ?? "PURCHASED",
            signedDate: try container.decodeIfPresent(Int64.self, forKey: .signedDate) ?? now,
            environment: try container.decodeIfPresent(String.self, forKey: .environment) ?? "Production",
            appAccountToken: try container.decodeIfPresent(String.self, forKey: .appAccountToken),
            revocationDate: try container.decodeIfPresent(Int64.self, forKey: .revocationDate),
            revocationReason: try container.decodeIfPresent(Int.self, forKey: .revocationReason),
            revocationType: try container.decodeIfPresent(String.self, forKey: .revocationType),
            revocationPercentage: try container.decodeIfPresent(Int.self, forKey: .revocationPercentage),
            transactionReason: try container.decodeIfPresent(String.self, forKey: .transactionReason) ?? "PURCHASE",
            storefront: try container.decodeIfPresent(String.self, forKey: .storefront) ?? "USA",
            price: try container.decodeIfPresent(Int64.self, forKey: .price),
            currency: try container.decodeIfPresent(String.self, forKey: .currency),
            offerType: try container.decodeIfPresent(Int.self, forKey: .offerType),
            offerIdentifier: try container.decodeIfPresent(String.self, forKey: .offerIdentifier),
            offerDiscountType: try container.decodeIfPresent(String.self, forKey: .offerDiscountType),
            expiresDate: try container.decodeIfPresent(Int64.self, forKey: .expiresDate),
            subscriptionGroupIdentifier: try container.decodeIfPresent(
                String.self,
                forKey: .subscriptionGroupIdentifier
            ),
            webOrderLineItemId: try container.decodeIfPresent(String.self, forKey: .webOrderLineItemId),
            isUpgraded: try container.decodeIfPresent(Bool.self, forKey: .isUpgraded)
        )
    }

    /// The wall clock in milliseconds since 1970, the unit of every date in the payload.
    package static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    private enum CodingKeys: String, CodingKey {
        case transactionId, originalTransactionId, bundleId, productId, purchaseDate, originalPurchaseDate
        case quantity, type, inAppOwnershipType, signedDate, environment, appAccountToken
        case revocationDate, revocationReason, revocationType, revocationPercentage, transactionReason, storefront
        case price, currency, offerType, offerIdentifier, offerDiscountType
        case expiresDate, subscriptionGroupIdentifier, webOrderLineItemId, isUpgraded
    }
}
