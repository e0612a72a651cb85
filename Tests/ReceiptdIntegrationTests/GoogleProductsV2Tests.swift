import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import Testing

/// Google purchases looked up with productsv2 against the stand-in: purchase options and offers, test purchases,
/// several line items, units refunded in part, and prices from `orders.get` when asked for.
@Suite struct GoogleProductsV2Tests {
    private func enqueue(
        _ f: Fixture,
        _ order: String,
        user: String = "u1",
        product: String,
        token: SyntheticPurchaseToken,
        quantity: Int = 1
    ) async throws {
        try await f.connection.execute(
            "SELECT iap.enqueue_google_purchase($1, $2, $3, $4, $5, $6)",
            [order, user, product, token.encoded(), quantity, String?.none]
        )
    }

    @Test func aNonDefaultPurchaseOptionIsDeliveredWithItsOfferAndAcknowledged() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            try await f.connection.execute("SELECT iap.define_product('google', 'no_ads', 'non_consumable')")
            try await enqueue(
                f,
                "ads",
                product: "no_ads",
                token: SyntheticPurchaseToken(
                    productID: "no_ads",
                    orderID: "GPA.7000-0000-0000-00001",
                    purchaseOptionID: "lifetime-discounted",
                    offerID: "launch-week"
                )
            )
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilSettled()
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.google_finalizations WHERE done_at IS NOT NULL") == "1"
                }
            }
            #expect(try await f.order("ads")["outcome"] == "full")
            let row = try await f.row(
                """
                SELECT transaction_id, product_kind, purchase_option_id, offer_id, offer_type, price, environment
                FROM iap.deliveries
                """
            )
            #expect(row["transaction_id"] == "GPA.7000-0000-0000-00001" && row["product_kind"] == "non_consumable")
            #expect(row["purchase_option_id"] == "lifetime-discounted" && row["offer_id"] == "launch-week")
            // Google says no offer type, and no price unless GOOGLE_PLAY_ORDER_AMOUNTS=on.
            #expect(row["offer_type"] == nil && row["price"] == nil && row["environment"] == "Production")
            // Looked up with productsv2 (no product in the path); a non-consumable is acknowledged, never consumed.
            #expect(google.recordedPurchaseQueries().map(\.productID) == [""])
            #expect(google.recordedFinalizations().map(\.action) == [.acknowledge])
            #expect(google.recordedOrderQueries().isEmpty)
        }
    }

    @Test func aTestPurchaseIsRecordedAsTheSandbox() async throws {
        try await Fixture.withGooglePlayStandIn { f, _, settings in
            let token = SyntheticPurchaseToken(productID: "gems", testPurchase: true)
            try await enqueue(f, "tester", product: "gems", token: token)
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            let row = try await f.row("SELECT transaction_id, environment FROM iap.deliveries")
            #expect(row["environment"] == "Sandbox" && row["transaction_id"]?.count == 64)
            #expect(try await f.order("tester")["outcome"] == "full")
        }
    }

    @Test func everyLineItemIsItsOwnLedgerRowAndAVoidingTakesThemAll() async throws {
        try await Fixture.withGooglePlayStandIn(settings: { $0.googlePlay.voidedInterval = .milliseconds(200) }) {
            f,
            google,
            settings in
            // The player's checkout opened an order for each product of the cart.
            try await f.connection.execute("SELECT iap.create_order('coins-order', 'u1', 'coins', 3, NULL, NULL)")
            let token = SyntheticPurchaseToken(
                orderID: "GPA.7000-0000-0000-00002",
                lineItems: [
                    .init(productID: "gems", quantity: 1, purchaseOptionID: "single"),
                    .init(productID: "coins", quantity: 3, purchaseOptionID: "bundle"),
                ]
            )
            try await enqueue(f, "gems-order", product: "gems", token: token)
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilSettled()
                let rows = try await f.connection.execute(
                    "SELECT transaction_id, order_id, product_id, quantity, purchase_option_id FROM iap.deliveries ORDER BY transaction_id"
                ).namedRows
                #expect(
                    rows.map { $0["transaction_id"] } == ["GPA.7000-0000-0000-00002", "GPA.7000-0000-0000-00002#2"]
                )
                #expect(rows.map { $0["order_id"] } == ["gems-order", "coins-order"])
                #expect(
                    rows.map { $0["quantity"] } == ["1", "3"]
                        && rows.map { $0["purchase_option_id"] } == ["single", "bundle"]
                )
                #expect(try await f.value("SELECT outcome FROM iap.orders WHERE order_id = 'coins-order'") == "full")
                // Google voids the purchase, naming its order: both lines are revoked.
                google.void(token: token.encoded(), orderID: "GPA.7000-0000-0000-00002", reason: 1)
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.deliveries WHERE revoked_at IS NOT NULL") == "2"
                }
            }
            #expect(
                try await f.value("SELECT string_agg(DISTINCT revocation_reason, ',') FROM iap.deliveries") == "remorse"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('u1')") == "2")
        }
    }

    @Test func unitsGoogleShowsRefundedAreRevokedOnce() async throws {
        try await Fixture.withGooglePlayStandIn { f, _, settings in
            // Five units, two refunded before the lookup: delivered, with two revoked and handed to the game.
            let token = SyntheticPurchaseToken(
                productID: "gems",
                orderID: "GPA.7000-0000-0000-00003",
                quantity: 5,
                refundableQuantity: 3
            )
            try await enqueue(f, "five", product: "gems", token: token, quantity: 5)
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            let row = try await f.row(
                "SELECT quantity, revoked_quantity, revocation_percentage, revoked_at FROM iap.deliveries"
            )
            #expect(row["quantity"] == "5" && row["revoked_quantity"] == "2" && row["revocation_percentage"] == "40000")
            #expect(row["revoked_at"] == nil)
            #expect(try await f.value("SELECT revoked_quantity FROM iap.owed_revocations('u1')") == "2")
            // The same answer again (a replay of the token) revokes nothing more.
            try await enqueue(f, "again", user: "u2", product: "gems", token: token, quantity: 5)
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            #expect(try await f.value("SELECT revoked_quantity FROM iap.deliveries") == "2")
        }
    }

    @Test func orderAmountsFillThePriceWhenAskedForAndARefusalHoldsNothing() async throws {
        try await Fixture.withGooglePlayStandIn(settings: { $0.googlePlay.orderAmounts = .on }) { f, google, settings in
            try await enqueue(
                f,
                "priced",
                product: "gems",
                token: SyntheticPurchaseToken(
                    productID: "gems",
                    orderID: "GPA.7000-0000-0000-00004",
                    price: "4.99",
                    currency: "EUR"
                )
            )
            for index in 1...2 {
                try await enqueue(
                    f,
                    "refused-\(index)",
                    user: "u\(index + 1)",
                    product: "gems",
                    token: SyntheticPurchaseToken(
                        productID: "gems",
                        orderID: "GPA.7000-0000-0000-0001\(index)",
                        price: "0.99",
                        orderStatus: 403
                    )
                )
            }
            // A test purchase has no order to ask about.
            try await enqueue(
                f,
                "tester",
                user: "u9",
                product: "gems",
                token: SyntheticPurchaseToken(productID: "gems", testPurchase: true, price: "0.99")
            )
            let lines = CapturingLogHandler.Lines()
            try await f.withDaemons(settings: settings, logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await f.waitUntilSettled()
            }
            let priced = try await f.row(
                "SELECT price::text, currency FROM iap.deliveries WHERE transaction_id = 'GPA.7000-0000-0000-00004'"
            )
            #expect(priced["price"] == "4.99" && priced["currency"] == "EUR")
            // Refused: delivered all the same, without a price, and said once.
            #expect(
                try await f.value(
                    "SELECT count(*) FROM iap.deliveries WHERE order_id LIKE 'refused-%' AND price IS NULL AND currency IS NULL"
                ) == "2"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE outcome = 'full'") == "4")
            #expect(try await f.value("SELECT price FROM iap.deliveries WHERE order_id = 'tester'") == nil)
            #expect(google.recordedOrderQueries().map(\.httpStatus).sorted() == [200, 403, 403])
            #expect(lines.all.filter { $0.contains("refused orders.get") }.count == 1)
        }
    }
}
