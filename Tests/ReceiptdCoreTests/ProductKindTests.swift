import Foundation
import Testing

@testable import ReceiptdCore

/// The kinds of the catalogue and the calls and names the stores give them.
@Suite struct ProductKindTests {
    @Test func appleTypesNameTheFourKindsAndNothingElse() {
        #expect(ProductKind(appleType: "Consumable") == .consumable)
        #expect(ProductKind(appleType: "Non-Consumable") == .nonConsumable)
        #expect(ProductKind(appleType: "Auto-Renewable Subscription") == .autoRenewable)
        #expect(ProductKind(appleType: "Non-Renewing Subscription") == .nonRenewing)
        #expect(ProductKind(appleType: "consumable") == nil && ProductKind(appleType: "") == nil)
        #expect(
            ProductKind.allCases.map(\.rawValue) == ["consumable", "non_consumable", "auto_renewable", "non_renewing"]
        )
    }

    @Test func aConsumableIsConsumedASubscriptionAcknowledgedAsOneAndEveryOtherKindAcknowledged() {
        #expect(GoogleFinalizeAction(kind: .consumable) == .consume)
        #expect(GoogleFinalizeAction(kind: .nonConsumable) == .acknowledge)
        #expect(GoogleFinalizeAction(kind: .autoRenewable) == .acknowledgeSubscription)
        let owed = GoogleFinalization(purchaseToken: "t", productID: "p", action: .none, overdue: .seconds(1))
        #expect(owed.owed(for: nil) == nil)
        #expect(owed.owed(for: .consumable)?.action == .consume)
        let consumed = GoogleFinalization(
            purchaseToken: "t",
            productID: "p",
            action: .acknowledge,
            overdue: .seconds(1),
            done: [.consume, .acknowledge]
        )
        #expect(consumed.owed(for: .consumable) == nil && consumed.owed(for: nil) == nil)
    }

    @Test func aSignedTransactionStatesKindOwnershipPriceAndOffer() throws {
        let payload = """
            {"transactionId":"1","bundleId":"b","productId":"gems","environment":"Production","signedDate":1,
             "type":"Non-Consumable","inAppOwnershipType":"FAMILY_SHARED","price":1990,"currency":"JPY",
             "offerType":3,"offerIdentifier":"SPRING"}
            """
        let details = try SignedTransaction(json: Data(payload.utf8)).purchase.details
        #expect(
            details
                == PurchaseDetails(
                    storeKind: .nonConsumable,
                    ownership: "family_shared",
                    priceMilliunits: 1990,
                    currency: "JPY",
                    offerType: "offer_code",
                    offerID: "SPRING"
                )
        )
        let bare = #"{"transactionId":"1","bundleId":"b","productId":"gems","environment":"Production","signedDate":1}"#
        #expect(try SignedTransaction(json: Data(bare.utf8)).details == PurchaseDetails())
    }

    @Test func offerTypesAndCurrenciesAreKeptInTheLedgersWords() {
        #expect(
            (1...5).map { PurchaseDetails.appleOfferType($0) } == [
                "introductory", "promotional", "offer_code", "win_back", "5",
            ]
        )
        #expect(PurchaseDetails.currencyCode("usd") == "USD" && PurchaseDetails.currencyCode("EUR") == "EUR")
        #expect(PurchaseDetails.currencyCode("EURO") == nil && PurchaseDetails.currencyCode("E1R") == nil)
        #expect(PurchaseDetails.currencyCode(nil) == nil)
    }
}
