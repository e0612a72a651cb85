import Foundation
import ReceiptdCore

/// The body of a productsv2 answer (`ProductPurchaseV2`) for a synthetic token; `nil` fields are left out.
struct GoogleProductPurchaseV2: Encodable {
    struct StateContext: Encodable {
        var purchaseState: String
    }

    struct TestContext: Encodable {
        var fopType = "TEST"
    }

    struct LineItem: Encodable {
        struct OfferDetails: Encodable {
            var quantity: Int?
            var refundableQuantity: Int?
            var consumptionState: String
            var purchaseOptionId: String?
            var offerId: String?
        }

        var productId: String?
        var productOfferDetails: OfferDetails
    }

    var kind = "androidpublisher#productPurchaseV2"
    var productLineItem: [LineItem]
    var purchaseStateContext: StateContext
    var testPurchaseContext: TestContext?
    var orderId: String?
    var obfuscatedExternalAccountId: String?
    var regionCode = "US"
    /// RFC 3339, absent while pending.
    var purchaseCompletionTime: String?
    var acknowledgementState: String

    /// What `specification` answers, after the calls `seen`; `pending` answers `PENDING`.
    init(_ specification: SyntheticPurchaseToken, seen: GooglePlayLedger.Purchase, purchased: Int64, pending: Bool) {
        let consumption = seen.consumed ? "CONSUMPTION_STATE_CONSUMED" : "CONSUMPTION_STATE_YET_TO_BE_CONSUMED"
        let lines =
            specification.lineItems
            ?? [
                .init(
                    productID: specification.productID ?? "",
                    quantity: specification.quantity,
                    refundableQuantity: specification.refundableQuantity,
                    purchaseOptionID: specification.purchaseOptionID,
                    offerID: specification.offerID
                )
            ]
        productLineItem = lines.map { line in
            LineItem(
                // A token made without a product names none, and the daemon keeps the order's.
                productId: line.productID.isEmpty ? nil : line.productID,
                productOfferDetails: .init(
                    quantity: line.quantity,
                    refundableQuantity: line.refundableQuantity,
                    consumptionState: consumption,
                    purchaseOptionId: line.purchaseOptionID,
                    offerId: line.offerID
                )
            )
        }
        let state = pending ? 2 : specification.state
        purchaseStateContext = StateContext(
            purchaseState: state == 0
                ? "PURCHASED" : state == 1 ? "CANCELLED" : state == 2 ? "PENDING" : "STATE_\(state)"
        )
        testPurchaseContext = specification.testPurchase == true ? TestContext() : nil
        orderId = specification.orderID
        obfuscatedExternalAccountId = specification.accountID
        purchaseCompletionTime =
            state == 0 ? RFC3339.string(milliseconds: purchased) : nil
        acknowledgementState =
            specification.acknowledged == true || seen.acknowledged
            ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING"
    }
}
