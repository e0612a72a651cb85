import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// The catalogue (`iap.products`, issue 34): the game's declarations, Google finalizing by kind (by the daemon
/// and by `assign`), App Store products learning their kind from signed transactions, and the ledger's kind,
/// ownership, price and offer columns.
@Suite struct ProductCatalogueTests {
    @Test func defineProductRefusesWhatNoStoreSellsAndRedeclaresTheKind() async throws {
        try await Fixture.with { f in
            for (store, product, kind) in [
                ("amazon", "gems", "consumable"), ("apple", "gems", "durable"), ("google", "pass", "non_renewing"),
                ("apple", "", "consumable"), ("apple", "gems", nil),
            ] as [(String, String, String?)] {
                let refused = await #expect(throws: PostgresError.self) {
                    try await f.connection.execute("SELECT iap.define_product($1, $2, $3)", [store, product, kind])
                }
                #expect(refused?.sqlState == "22023", "\(store)/\(product)/\(kind ?? "nil")")
            }
            #expect(try await f.value("SELECT count(*) FROM iap.products") == "0")

            try await f.connection.execute("SELECT iap.define_product('apple', 'gems', 'non_consumable')")
            // The parameters' names are part of the contract.
            try await f.connection.execute(
                "SELECT iap.define_product(store => 'apple', product_id => 'gems', kind => 'consumable')"
            )
            try await f.connection.execute("SELECT iap.define_product('google', 'gems', 'consumable')")
            let products = try await OperatorQueries(connection: f.connection).products(store: .apple)
            #expect(
                products.map { "\($0.store)/\($0.productID)/\($0.kind)/\($0.source)" } == ["apple/gems/consumable/game"]
            )
            #expect(products.first?.storeKind == nil && products.first?.isMismatch == false)
        }
    }

    @Test func eachGooglePurchaseIsFinalizedByItsKindAndTheDefaultOnlyForUndeclaredProducts() async throws {
        try await Fixture.withGooglePlayStandIn(settings: { $0.googlePlay.finalize = .none }) { f, google, settings in
            try await f.connection.execute("SELECT iap.define_product('google', 'gems', 'consumable')")
            try await f.connection.execute("SELECT iap.define_product('google', 'potion', 'consumable')")
            try await f.connection.execute("SELECT iap.define_product('google', 'sword', 'non_consumable')")
            let purchases: [(order: String, user: String, token: SyntheticPurchaseToken)] = [
                ("o-gems", "u1", SyntheticPurchaseToken(productID: "gems", orderID: "GPA.1")),
                // Acknowledged by the app, not consumed: a consumable still owes its consumption.
                ("o-potion", "u2", SyntheticPurchaseToken(productID: "potion", orderID: "GPA.2", acknowledged: true)),
                ("o-sword", "u3", SyntheticPurchaseToken(productID: "sword", orderID: "GPA.3")),
                // Not in the catalogue: GOOGLE_PLAY_FINALIZE (none here) decides.
                ("o-shield", "u4", SyntheticPurchaseToken(productID: "shield", orderID: "GPA.4")),
            ]
            for purchase in purchases {
                try await f.connection.execute(
                    "SELECT iap.enqueue_google_purchase($1, $2, $3, $4)",
                    [purchase.order, purchase.user, purchase.token.productID, purchase.token.encoded()]
                )
            }
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilSettled()
                try await f.waitUntil { google.recordedFinalizations().count == 3 }
            }
            let calls = Dictionary(
                google.recordedFinalizations().map { ($0.productID, $0.action) },
                uniquingKeysWith: { first, _ in first }
            )
            #expect(calls == ["gems": .consume, "potion": .consume, "sword": .acknowledge], "\(calls)")
            #expect(
                try await f.value(
                    "SELECT string_agg(product_id || ':' || action, ',' ORDER BY product_id) FROM iap.google_finalizations"
                ) == "gems:consume,potion:consume,sword:acknowledge"
            )
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(product_id || ':' || coalesce(product_kind, '-'), ',' ORDER BY product_id)
                    FROM iap.deliveries
                    """
                ) == "gems:consumable,potion:consumable,shield:-,sword:non_consumable"
            )
        }
    }

    @Test func assignFinalizesAGooglePaymentByItsKind() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.define_product('google', 'gems', 'consumable')")
            for (order, product, transaction) in [("o1", "gems", "GPA.71"), ("o2", "sword", "GPA.72")] {
                try await f.connection.execute("SELECT iap.create_order($1, 'u1', $2)", [order, product])
                try await f.connection.execute(
                    """
                    INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, store, purchase_token)
                    VALUES ($1, $2, 1, 'google', $3)
                    """,
                    [transaction, product, "token-\(transaction)"]
                )
                let assigned = try ReceiptdBinary.run([
                    "assign", transaction, order, "--database-url", f.database.connectionString,
                ])
                #expect(assigned.status == 0, "\(assigned.stderr)")
            }
            // The consumable is consumed; a product not in the catalogue keeps today's acknowledgement.
            #expect(
                try await f.value(
                    "SELECT string_agg(transaction_id || ':' || action, ',' ORDER BY transaction_id) FROM iap.google_finalizations"
                ) == "GPA.71:consume,GPA.72:acknowledge"
            )
            #expect(
                try await f.value("SELECT product_kind FROM iap.deliveries WHERE transaction_id = 'GPA.71'")
                    == "consumable"
            )
        }
    }

    @Test func anAppStoreProductLearnsItsKindFromASignedTransactionAndAContradictionIsShown() async throws {
        try await Fixture.with { f in
            // Declared a non-consumable; Apple's transactions say Consumable.
            try await f.connection.execute("SELECT iap.define_product('apple', 'gems', 'non_consumable')")
            let chain = f.standIn.testChain
            try await f.enqueue(
                "o-sword",
                product: "sword",
                transaction: chain.signedTransaction(
                    SignedTransactionPayload(transactionId: "8101", productId: "sword", type: "Non-Consumable")
                )
            )
            try await f.enqueue(
                "o-gems",
                user: "u2",
                transaction: chain.signedTransaction(
                    SignedTransactionPayload(transactionId: "8102", productId: "gems", type: "Consumable")
                )
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }

            let products = try await OperatorQueries(connection: f.connection).products(store: nil)
            #expect(
                products.map { "\($0.productID)/\($0.kind)/\($0.source)/\($0.storeKind ?? "-")" }
                    == ["gems/non_consumable/game/consumable", "sword/non_consumable/store/non_consumable"]
            )
            // Apple's word is used for the delivery.
            #expect(
                try await f.value(
                    "SELECT string_agg(transaction_id || ':' || product_kind || ':' || ownership, ',' ORDER BY transaction_id) FROM iap.deliveries"
                ) == "8101:non_consumable:purchased,8102:consumable:purchased"
            )

            let status = try ReceiptdBinary.run(["status", "--database-url", f.database.connectionString])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(
                status.stdout.contains(
                    "Product kinds the store contradicts: 1\n  apple gems: declared non_consumable, the store says consumable (used)"
                ),
                "\(status.stdout)"
            )
            let listed = try ReceiptdBinary.run([
                "products", "--store", "apple", "--json", "--database-url", f.database.connectionString,
            ])
            #expect(listed.status == 0, "\(listed.stderr)")
            let rows = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
            #expect(rows?.compactMap { $0["product_id"] as? String } == ["gems", "sword"])
            #expect(rows?.first?["store_kind"] as? String == "consumable")
            let table = try ReceiptdBinary.run(["products", "--database-url", f.database.connectionString])
            #expect(table.stdout.contains("consumable (used: contradicts the declared kind)"), "\(table.stdout)")
        }
    }

    @Test func theLedgerKeepsPriceCurrencyAndOfferOfASignedTransaction() async throws {
        try await Fixture.with { f in
            let chain = f.standIn.testChain
            // An offer code redeemed for a free unit, and a pack of three bought at 4.99 in all.
            try await f.enqueue(
                "o-free",
                transaction: chain.signedTransaction(
                    SignedTransactionPayload(
                        transactionId: "8201",
                        productId: "gems",
                        price: 0,
                        currency: "EUR",
                        offerType: 3,
                        offerIdentifier: "LAUNCH2026",
                        offerDiscountType: "ONE_TIME"
                    )
                )
            )
            try await f.enqueue(
                "o-paid",
                user: "u2",
                transaction: chain.signedTransaction(
                    SignedTransactionPayload(
                        transactionId: "8202",
                        productId: "gems",
                        quantity: 3,
                        price: 4990,
                        currency: "USD"
                    )
                ),
                quantity: 3
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let free = try await f.row(
                "SELECT price::text AS price, currency, offer_type, offer_id FROM iap.deliveries WHERE transaction_id = '8201'"
            )
            #expect(
                free["price"] == "0" && free["currency"] == "EUR" && free["offer_type"] == "offer_code"
                    && free["offer_id"] == "LAUNCH2026"
            )
            let paid = try await f.row(
                "SELECT price::text AS price, currency, offer_type, quantity FROM iap.deliveries WHERE transaction_id = '8202'"
            )
            #expect(paid["price"] == "4.99" && paid["currency"] == "USD" && paid["offer_type"] == nil)
            #expect(paid["quantity"] == "3")

            // What operators see: `receiptd show`, the order timeline, and the player's total per currency.
            let shown = try ReceiptdBinary.run(["show", "o-free", "--database-url", f.database.connectionString])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(
                ["KIND", "OWNERSHIP", "PRICE", "OFFER", "0 EUR", "offer_code LAUNCH2026", "purchased"].allSatisfy {
                    shown.stdout.contains($0)
                },
                "\(shown.stdout)"
            )
            let queries = OperatorQueries(connection: f.connection)
            let timeline = try await queries.timeline(orderID: "o-paid")
            let delivered = try #require(timeline.events.first { $0.kind == .delivery })
            let fields = Dictionary(uniqueKeysWithValues: delivered.fields.map { ($0.name, $0.value) })
            #expect(fields["price"] == "4.99 USD" && fields["ownership"] == "purchased", "\(fields)")
            try await f.enqueue(
                "o-paid-2",
                user: "u2",
                transaction: chain.signedTransaction(
                    SignedTransactionPayload(transactionId: "8203", productId: "gems", price: 990, currency: "USD")
                )
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(
                try await queries.player("u2").spent.map { "\($0.currency) \($0.total) \($0.purchases)" } == [
                    "USD 5.98 2"
                ]
            )
            #expect(try await queries.player("u1").spent.map(\.currency) == ["EUR"])
        }
    }

    @Test func aReceiptsDeliveryTakesTheDeclaredKindAndSaysNothingItDoesNotKnow() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.define_product('apple', 'gems', 'consumable')")
            try await f.enqueue("o1", receipt: SyntheticReceipt(inApp: [Receipts.purchase("8301")]).encoded())
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let row = try await f.row(
                "SELECT product_kind, ownership, price, currency, offer_type, offer_id, purchase_option_id FROM iap.deliveries"
            )
            #expect(row["product_kind"] == "consumable")
            #expect(
                ["ownership", "price", "currency", "offer_type", "offer_id", "purchase_option_id"].allSatisfy {
                    row[$0] == nil
                }
            )
            // verifyReceipt names no type: the catalogue learns nothing from it.
            #expect(try await f.value("SELECT count(*) FROM iap.products") == "1")
        }
    }

    @Test func aFamilySharedPurchaseIsDeliveredButIsNobodysPaymentAndEarnsNoTrust() async throws {
        try await Fixture.with { f in
            let chain = f.standIn.testChain
            func sword(_ id: String, original: String, product: String = "sword", shared: Bool) -> String {
                chain.signedTransaction(
                    SignedTransactionPayload(
                        transactionId: id,
                        originalTransactionId: original,
                        productId: product,
                        type: "Non-Consumable",
                        inAppOwnershipType: shared ? "FAMILY_SHARED" : "PURCHASED"
                    )
                )
            }
            // The parent buys the sword; the child, untrusted, presents the family's shared copy of it.
            try await f.enqueue(
                "o-parent",
                user: "parent",
                product: "sword",
                transaction: sword("9001", original: "9001", shared: false)
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            try await f.connection.execute("SELECT iap.set_trust('child', 'apple', false, 'test')")
            try await f.enqueue(
                "o-child",
                user: "child",
                product: "sword",
                transaction: sword("9002", original: "9001", shared: true)
            )
            // A shared copy of another product that no order of the child's wants.
            try await f.enqueue(
                "o-child-gems",
                user: "child",
                transaction: sword("9003", original: "9003", product: "shield", shared: true)
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }

            let child = try await f.order("o-child")
            #expect(child["outcome"] == "full" && child["last_error"] == nil, "\(child)")
            #expect(
                try await f.value(
                    "SELECT order_id || ':' || ownership FROM iap.deliveries WHERE transaction_id = '9002'"
                )
                    == "o-child:family_shared"
            )
            // Not the parent's purchase seen again (no foreign purchase), not a first owner, not an unclaimed payment.
            #expect(try await f.value("SELECT count(*) FROM iap.foreign_transactions") == "0")
            #expect(
                try await f.value(
                    "SELECT string_agg(original_transaction_id || ':' || user_id, ',') FROM iap.transaction_owners"
                )
                    == "9001:parent"
            )
            #expect(try await f.order("o-child-gems")["outcome"] == "unmatched")
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "0")
            let trust = try await f.row("SELECT trusted, streak FROM iap.user_trust WHERE user_id = 'child'")
            #expect(trust["trusted"] == "f" && trust["streak"] == "0", "\(trust)")
        }
    }

}
