import Foundation
import Testing

@testable import ReceiptdCore

/// productsv2 (`getproductpurchasev2`) and `orders.get` answers as Google writes them, decoded and sorted into
/// ledger purchases without I/O.
@Suite struct GoogleProductsV2Tests {
    private let lookup = GooglePlayClassifier.Lookup(token: "tok-1", productID: "gems", waited: .seconds(30))

    private func decode(_ json: String) throws -> GoogleProductPurchase {
        try JSONDecoder().decode(GoogleProductPurchase.self, from: Data(json.utf8))
    }

    private func purchases(_ json: String) throws -> [VerifiedPurchase] {
        var configuration = GooglePlayConfiguration()
        configuration.packageName = "com.example.game"
        let attempt = GooglePlayClassifier.classify(
            status: 200,
            purchase: try decode(json),
            lookup: lookup,
            configuration: configuration
        )
        guard case .verified(let verified) = attempt.verdict else { return [] }
        return verified.purchases
    }

    @Test func aPurchaseOptionAndOfferAreReadFromTheLineItem() throws {
        let found = try purchases(
            """
            {"kind":"androidpublisher#productPurchaseV2","orderId":"GPA.3300-1234-5678-90123",
             "purchaseStateContext":{"purchaseState":"PURCHASED"},"acknowledgementState":"ACKNOWLEDGEMENT_STATE_PENDING",
             "purchaseCompletionTime":"2025-07-01T10:00:00.123456789Z","obfuscatedExternalAccountId":"acct-7",
             "productLineItem":[{"productId":"no_ads","productOfferDetails":{"purchaseOptionId":"lifetime-promo",
               "offerId":"launch","quantity":1,"refundableQuantity":1,
               "consumptionState":"CONSUMPTION_STATE_YET_TO_BE_CONSUMED"}}]}
            """
        )
        let purchase = try #require(found.first)
        #expect(found.count == 1)
        // Google's product, not the one the job asked under.
        #expect(purchase.productID == "no_ads" && purchase.transactionID == "GPA.3300-1234-5678-90123")
        #expect(purchase.details.purchaseOptionID == "lifetime-promo" && purchase.details.offerID == "launch")
        #expect(purchase.purchaseDateMilliseconds == 1_751_364_000_123 && purchase.accountID == "acct-7")
        #expect(purchase.refundedQuantity == 0 && !purchase.isCancelled)
    }

    @Test func everyLineItemIsItsOwnPurchaseBackToTheFirst() throws {
        let found = try purchases(
            """
            {"orderId":"GPA.1","purchaseStateContext":{"purchaseState":"PURCHASED"},
             "purchaseCompletionTime":"2025-07-01T10:00:00+02:00",
             "productLineItem":[{"productId":"gems","productOfferDetails":{"quantity":5,"refundableQuantity":3}},
                                {"productId":"coins","productOfferDetails":{"quantity":2,"refundableQuantity":0}},
                                {"productOfferDetails":{}}]}
            """
        )
        #expect(found.map(\.transactionID) == ["GPA.1", "GPA.1#2", "GPA.1#3"])
        #expect(found.map(\.originalTransactionID) == ["GPA.1", "GPA.1", "GPA.1"])
        // A line that names no product is the product asked about; quantity 1 when absent.
        #expect(found.map(\.productID) == ["gems", "coins", "gems"] && found.map(\.quantity) == [5, 2, 1])
        // Two of five refunded: delivered, two to revoke. All of a line refunded: it pays nothing.
        #expect(found.map(\.refundedQuantity) == [2, 2, 0] && found.map(\.isCancelled) == [false, true, false])
        #expect(found.first?.purchaseDateMilliseconds == 1_751_356_800_000)
    }

    @Test func aTestPurchaseIsTheSandboxAndItsStatesAreNamed() throws {
        let test = try decode(
            """
            {"purchaseStateContext":{"purchaseState":"PURCHASED"},"testPurchaseContext":{"fopType":"TEST"},
             "acknowledgementState":"ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
             "productLineItem":[{"productId":"gems","productOfferDetails":{"consumptionState":"CONSUMPTION_STATE_CONSUMED"}}]}
            """
        )
        #expect(test.environment == .sandbox && test.orderID == nil && test.ledgerID(token: "abc").count == 64)
        #expect(test.finalizedBy == [.acknowledge, .consume])
        // No purchaseCompletionTime while pending: the time is unknown.
        let pending = try decode(#"{"purchaseStateContext":{"purchaseState":"PENDING"},"productLineItem":[]}"#)
        #expect(pending.purchaseState == .pending && pending.purchaseTimeMilliseconds == nil)
        #expect(try decode(#"{"purchaseStateContext":{"purchaseState":"CANCELLED"}}"#).purchaseState == .cancelled)
        #expect(
            try decode(#"{"purchaseStateContext":{"purchaseState":"PURCHASE_STATE_UNSPECIFIED"}}"#).purchaseState
                == .unknown(-1)
        )
        // Without a state the answer is unreadable (a garbled answer, retried).
        #expect(throws: DecodingError.self) { try decode(#"{"purchaseStateContext":{},"productLineItem":[]}"#) }
    }

    @Test func rfc3339TimesKeepMilliseconds() {
        #expect(RFC3339.milliseconds("2014-10-02T15:01:23Z") == 1_412_262_083_000)
        #expect(RFC3339.milliseconds("2014-10-02T15:01:23.045123456Z") == 1_412_262_083_045)
        #expect(RFC3339.milliseconds("2014-10-02T15:01:23.5Z") == 1_412_262_083_500)
        #expect(RFC3339.milliseconds("2014-10-02T15:01:23+05:30") == 1_412_242_283_000)
        #expect(RFC3339.milliseconds("yesterday") == nil)
        #expect(RFC3339.milliseconds("2014-10-02T15:01:23.Z") == nil)
        #expect(RFC3339.milliseconds("2014-02-30T15:01:23Z") == nil)
        #expect(RFC3339.milliseconds("1969-12-31T23:59:59.999Z") == -1)
        #expect(RFC3339.milliseconds("2024-02-29T00:00:00-00:30") == 1_709_166_600_000)
        for milliseconds: Int64 in [0, 1_412_262_083_045, 951_782_400_000, 253_402_300_799_999, -86_400_001] {
            #expect(RFC3339.milliseconds(RFC3339.string(milliseconds: milliseconds)) == milliseconds)
        }
        #expect(RFC3339.string(milliseconds: 1_412_262_083_045) == "2014-10-02T15:01:23.045Z")
    }

    @Test func anOrdersAmountIsItsLineItemsOrItsTotal() throws {
        let order = try JSONDecoder().decode(
            GoogleOrder.self,
            from: Data(
                """
                {"orderId":"GPA.1","total":{"currencyCode":"EUR","units":"5","nanos":480000000},
                 "lineItems":[{"productId":"gems","total":{"currencyCode":"EUR","units":"4","nanos":990000000}},
                              {"productId":"coins","total":{"currencyCode":"EUR","nanos":490000000}}]}
                """.utf8
            )
        )
        #expect(order.amount(ofLine: 0, productID: "gems", lineCount: 2) == .init(milliunits: 4990, currency: "EUR"))
        #expect(order.amount(ofLine: 1, productID: "coins", lineCount: 2) == .init(milliunits: 490, currency: "EUR"))
        // A line the order lists under another product has no amount of its own; a lone purchase takes the total.
        #expect(order.amount(ofLine: 1, productID: "gold", lineCount: 2) == nil)
        #expect(order.amount(ofLine: 5, productID: "gold", lineCount: 1) == .init(milliunits: 5480, currency: "EUR"))
        let yen = try JSONDecoder().decode(
            GoogleOrder.Money.self,
            from: Data(#"{"currencyCode":"JPY","units":120}"#.utf8)
        )
        #expect(yen == .init(milliunits: 120_000, currency: "JPY"))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(GoogleOrder.Money.self, from: Data(#"{"units":"1"}"#.utf8))
        }
    }
}
