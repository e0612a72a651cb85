import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Orders as games make them: checkout before payment, pending → verified → finished, closed, another account on
/// the same device, payments nobody ordered, every paid unit delivered.
@Suite struct OrderLifecycleTests {
    private static func purchase(
        _ id: String,
        product: String = "gems",
        quantity: String = "1",
        hoursAgo: Double = 0
    ) -> SyntheticTransaction {
        SyntheticTransaction(
            transactionID: id,
            productID: product,
            quantity: quantity,
            purchaseDateMilliseconds: String(Int64((Date().timeIntervalSince1970 - hoursAgo * 3600) * 1000))
        )
    }

    private static func receipt(_ purchases: SyntheticTransaction...) -> String {
        SyntheticReceipt(inApp: purchases).encoded()
    }

    /// Daemon settings that record every unclaimed payment, however old.
    private func everyPayment(_ f: Fixture) -> ReceiptdSettings {
        f.settings { $0.daemon.unclaimedSince = Date(timeIntervalSince1970: 0) }
    }

    @Test func createOrderRecordsTheCheckoutOnceAndRefusesConflicts() async throws {
        try await Fixture.with { f in
            let first = try await f.value("SELECT iap.create_order('o1', 'u1', 'gems', 2)::text")
            #expect(first != nil)
            #expect(try await f.value("SELECT iap.create_order('o1', 'u1', 'gems', 2)::text") == first)
            #expect(try await f.value("SELECT checkout_at::text FROM iap.orders WHERE order_id = 'o1'") == first)
            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'o1'") == "pending")
            for (user, product, quantity) in [("u2", "gems", 2), ("u1", "shield", 2), ("u1", "gems", 3)] {
                let error = await #expect(throws: PostgresError.self) {
                    try await f.connection.execute(
                        "SELECT iap.create_order('o1', $1, $2, $3)",
                        [user, product, quantity]
                    )
                }
                #expect(error?.sqlState == "22023", "\(user) \(product) \(quantity)")
            }
            for (order, user) in [
                ("", "u1"), (String(repeating: "o", count: 256), "u1"), ("o\u{1b}", "u1"), ("o9", "u\n"),
            ] {
                let error = await #expect(throws: PostgresError.self) {
                    try await f.connection.execute("SELECT iap.create_order($1, $2, 'gems')", [order, user])
                }
                #expect(error?.sqlState == "22023")
            }
            // An order first seen with its receipt has no checkout.
            try await f.enqueue("o2", receipt: Self.receipt(Self.purchase("1")))
            #expect(try await f.value("SELECT iap.create_order('o2', 'u1', 'gems')::text") == nil)
        }
    }

    @Test func theFunctionsTakeTheContractsParameterNames() async throws {
        try await Fixture.with { f in
            let expected = [
                "create_order(text, text, text, int, uuid, text)":
                    "order_id text, user_id text, product_id text, quantity integer DEFAULT 1, "
                    + "app_account_token uuid DEFAULT NULL::uuid, account_id text DEFAULT NULL::text",
                "owed_revocations(text)": "user_id text",
                "mark_revocation_handled(text[])": "transaction_ids text[]",
                "set_consumption_consent(text, boolean)": "user_id text, consented boolean",
                "owed_deliveries(text)": "user_id text", "mark_granted(text)": "order_id text",
                "mark_granted(text, text[])": "order_id text, transaction_ids text[]",
                "close_order(text)": "order_id text",
                "assign_payment(text, text)": "transaction_id text, order_id text",
            ]
            for (signature, arguments) in expected {
                #expect(
                    try await f.value("SELECT pg_get_function_arguments(('iap.' || $1)::regprocedure)", [signature])
                        == arguments,
                    "\(signature)"
                )
            }
            let checkout = try await f.value(
                """
                SELECT iap.create_order(order_id => 'o1', user_id => 'u1', product_id => 'gems', quantity => 2)::text
                """
            )
            #expect(checkout != nil)
            #expect(try await f.value("SELECT iap.mark_granted(order_id => 'o1')") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries(user_id => 'u1')") == "0")
        }
    }

    @Test func thePurchaseDateRuleUsesTheCheckout() async throws {
        try await Fixture.with { f in
            for order in ["after", "skewed", "before"] {
                try await f.connection.execute("SELECT iap.create_order($1, $2, 'gems')", [order, "u-\(order)"])
            }
            try await f.enqueue("after", user: "u-after", receipt: Self.receipt(Self.purchase("11")))
            try await f.enqueue(
                "skewed",
                user: "u-skewed",
                receipt: Self.receipt(Self.purchase("12", hoursAgo: 1.0 / 60))
            )
            try await f.enqueue("before", user: "u-before", receipt: Self.receipt(Self.purchase("13", hoursAgo: 8)))
            try await f.enqueue("late", user: "u-late", receipt: Self.receipt(Self.purchase("14", hoursAgo: 8)))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("after")["outcome"] == "full")
            #expect(try await f.order("skewed")["outcome"] == "full")  // within RECEIPTD_PURCHASE_SKEW (300 s)
            #expect(try await f.order("before")["outcome"] == "unmatched")  // bought 8 h before its checkout
            #expect(try await f.order("late")["outcome"] == "full")  // no checkout: a receipt 8 h late settles
            // Bought before the database was first migrated: an older system's purchase, not an unclaimed payment.
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "0")
        }
    }

    @Test func deliveredGoodsAreOwedUntilGrantedAndTheGameIsNotified() async throws {
        try await Fixture.with { f in
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_verified")
            try await f.connection.execute("SELECT iap.create_order('o1', 'alice', 'gems')")
            try await f.enqueue("o1", user: "alice", receipt: Self.receipt(Self.purchase("21")))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 2_000) }
            await listener.close()
            let payload = try #require(notes.first { $0.channel == "iap_verified" }?.payload)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: String])
            #expect(object == ["order_id": "o1", "user_id": "alice"])

            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'o1'") == "verified")
            let owed = try await f.row(
                "SELECT transaction_id, order_id, product_id, quantity FROM iap.owed_deliveries('alice')"
            )
            #expect(
                owed["transaction_id"] == "21" && owed["order_id"] == "o1" && owed["product_id"] == "gems"
                    && owed["quantity"] == "1"
            )
            // A game that stops granting shows in `receiptd status` once a delivery waits over 10 minutes.
            let queries = OperatorQueries(connection: f.connection)
            #expect(try await queries.status().owedOverTenMinutes == 0)
            try await f.connection.execute("UPDATE iap.deliveries SET delivered_at = now() - interval '11 minutes'")
            #expect(try await queries.status().owedOverTenMinutes == 1)
            #expect(
                try await queries.status().statuses.map { "\($0.status) \($0.orders)" }
                    == ["pending 0", "verified 1", "finished 0", "closed 0"]
            )
            #expect(try await f.value("SELECT iap.mark_granted('o1')") == "1")
            #expect(try await f.value("SELECT iap.mark_granted('o1')") == "0")
            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'o1'") == "finished")
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('alice')") == "0")
            #expect(try await queries.status().owedOverTenMinutes == 0)
            let unknown = await #expect(throws: PostgresError.self) {
                try await f.connection.execute("SELECT iap.mark_granted('nope')")
            }
            #expect(unknown?.sqlState == "P0002")
        }
    }

    @Test func aClosedOrderStillTakesAPaymentThatArrives() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.create_order('o1', 'u1', 'gems')")
            try await f.enqueue("o1", receipt: SyntheticReceipt(inApp: []).encoded())
            try await f.connection.execute("SELECT iap.close_order('o1')")
            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'o1'") == "closed")
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE order_id = 'o1'") == "pending")  // left alone
            // The money was taken after all: the payment is delivered and the order is verified.
            try await f.enqueue("o1", receipt: Self.receipt(Self.purchase("31")))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(
                try await f.value("SELECT status::text || '/' || outcome::text FROM iap.orders WHERE order_id = 'o1'")
                    == "verified/full"
            )
            let refused = await #expect(throws: PostgresError.self) {
                try await f.connection.execute("SELECT iap.close_order('o1')")
            }
            #expect(refused?.sqlState == "55000")
            let unknown = await #expect(throws: PostgresError.self) {
                try await f.connection.execute("SELECT iap.close_order('nope')")
            }
            #expect(unknown?.sqlState == "P0002")
        }
    }

    @Test func closingAnOrderLeavesAJobVerifyingTheClientsReceiptAlone() async throws {
        try await Fixture.with { f in
            // The client sent its receipt; Apple answered 503 and the retry is an hour away when the game gives up.
            try await f.connection.execute("SELECT iap.create_order('o1', 'u1', 'gems')")
            let receipt = SyntheticReceipt(inApp: [Receipts.purchase("35")], script: [ScriptStep(http: 503)]).encoded()
            let job = try await f.enqueue("o1", receipt: receipt)
            let slowRetry = f.settings { $0.daemon.backoff = Backoff(base: .seconds(3_600), maximum: .seconds(3_600)) }
            try await f.withDaemons(settings: slowRetry) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT attempts FROM iap.jobs WHERE id = $1 AND state = 'pending'", [job]) == "1"
                }
            }
            try await f.connection.execute("SELECT iap.close_order('o1')")
            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'o1'") == "closed")
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [job]) == "pending")
            // The retry comes due: the payment is delivered, and the order is verified.
            try await f.connection.execute("UPDATE iap.jobs SET run_at = now() WHERE id = $1", [job])
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(
                try await f.value("SELECT status::text || '/' || outcome::text FROM iap.orders WHERE order_id = 'o1'")
                    == "verified/full"
            )
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [job]) == "succeeded")
            #expect(try await f.value("SELECT transaction_id FROM iap.owed_deliveries('u1')") == "35")
        }
    }

    @Test func markGrantedWithIdsLeavesATransactionDeliveredMeanwhileOwed() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.create_order('o1', 'u1', 'gems', 2)")
            try await f.enqueue("o1", receipt: Self.receipt(Self.purchase("71")), quantity: 2)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            // The game reads what it owes …
            let seen = try await f.connection.execute("SELECT transaction_id FROM iap.owed_deliveries('u1')").rows
                .compactMap { $0[0] }
            #expect(seen == ["71"])
            // … a second transaction is delivered to the order meanwhile …
            try await f.enqueue("o1", receipt: Self.receipt(Self.purchase("71"), Self.purchase("72")), quantity: 2)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("o1")["outcome"] == "full")
            // … and it confirms what it granted: the second one stays owed, and the order is not finished.
            #expect(try await f.value("SELECT iap.mark_granted('o1', $1::text[])", ["{71}"]) == "1")
            #expect(try await f.value("SELECT iap.mark_granted('o1', $1::text[])", ["{71}"]) == "0")
            #expect(try await f.value("SELECT string_agg(transaction_id, ',') FROM iap.owed_deliveries('u1')") == "72")
            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'o1'") == "verified")
            // An id of another order marks nothing.
            #expect(try await f.value("SELECT iap.mark_granted('o1', ARRAY['nope'])") == "0")
            #expect(
                try await f.value("SELECT iap.mark_granted(order_id => 'o1', transaction_ids => ARRAY['72'])") == "1"
            )
            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'o1'") == "finished")
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('u1')") == "0")

            let null = await #expect(throws: PostgresError.self) {
                try await f.connection.execute("SELECT iap.mark_granted('o1', NULL)")
            }
            #expect(null?.sqlState == "22023")
            let unknown = await #expect(throws: PostgresError.self) {
                try await f.connection.execute("SELECT iap.mark_granted('nope', ARRAY['72'])")
            }
            #expect(unknown?.sqlState == "P0002")
        }
    }

    @Test func anotherAccountOnTheSameDeviceSettlesTheOrderForItsOwner() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.create_order('o1', 'alice', 'gems')")
            let job = try await f.enqueue("o1", user: "bob", receipt: Self.receipt(Self.purchase("41")))
            #expect(try await f.value("SELECT submitted_by FROM iap.jobs WHERE id = $1", [job]) == "bob")
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("o1")["outcome"] == "full")
            #expect(try await f.value("SELECT user_id FROM iap.deliveries WHERE transaction_id = '41'") == "alice")
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('alice')") == "1")
            let product = await #expect(throws: PostgresError.self) {
                try await f.enqueue("o1", user: "bob", product: "shield", receipt: Self.receipt(Self.purchase("42")))
            }
            #expect(product?.sqlState == "22023")
        }
    }

    @Test func everyPaidUnitIsDelivered() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: Self.receipt(Self.purchase("51", quantity: "3")))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let row = try await f.order("o1")
            #expect(row["outcome"] == "full" && row["delivered_quantity"] == "3")
            #expect(try await f.value("SELECT quantity FROM iap.deliveries WHERE transaction_id = '51'") == "3")
            #expect(try await f.value("SELECT quantity FROM iap.owed_deliveries('u1')") == "3")
            #expect(try await OperatorQueries(connection: f.connection).status().overpaidOrders == 1)
        }
    }

    @Test func anUnclaimedPaymentIsRecordedOnceAndAssignedOnce() async throws {
        try await Fixture.with { f in
            // The client paid twice but lost the first order id: the older payment pays no order of u1.
            try await f.connection.execute("SELECT iap.create_order('o1', 'u1', 'gems')")
            try await f.enqueue("o1", receipt: Self.receipt(Self.purchase("61", hoursAgo: 1), Self.purchase("62")))
            try await f.withDaemons(settings: everyPayment(f)) { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("o1")["outcome"] == "full")
            let payment = try await f.row(
                "SELECT transaction_id, product_id, quantity, user_id, order_id, environment FROM iap.unclaimed_payments"
            )
            #expect(payment["transaction_id"] == "61" && payment["product_id"] == "gems" && payment["quantity"] == "1")
            #expect(payment["user_id"] == "u1" && payment["order_id"] == "o1" && payment["environment"] == "Production")

            // The same receipt again records nothing new.
            try await f.connection.execute("SELECT iap.create_order('o0', 'u1', 'gems')")
            try await f.enqueue("o0", receipt: Self.receipt(Self.purchase("61", hoursAgo: 1), Self.purchase("62")))
            try await f.withDaemons(settings: everyPayment(f)) { _ in try await f.waitUntilSettled() }
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "1")

            let url = f.database.connectionString
            let listed = try ReceiptdBinary.run(["unclaimed", "--json", "--database-url", url])
            let rows = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
            )
            #expect(listed.status == 0 && rows.count == 1 && rows.first?["transaction_id"] as? String == "61")

            try await f.connection.execute("SELECT iap.create_order('lost', 'u1', 'gems')")
            try await f.connection.execute("SELECT iap.create_order('shield', 'u1', 'shield')")
            #expect(try ReceiptdBinary.run(["assign", "61", "shield", "--database-url", url]).status == 4)
            #expect(try ReceiptdBinary.run(["assign", "61", "o1", "--database-url", url]).status == 4)  // full
            // Unknown payment
            #expect(try ReceiptdBinary.run(["assign", "99", "lost", "--database-url", url]).status == 3)
            let assigned = try ReceiptdBinary.run(["assign", "61", "lost", "--database-url", url])
            #expect(
                assigned.status == 0 && assigned.stdout.contains("delivered to order lost: full"),
                "\(assigned.stderr)"
            )
            let again = try ReceiptdBinary.run(["assign", "61", "lost", "--database-url", url])
            #expect(again.status == 4 && again.stderr.contains("already delivered"))
            #expect(
                try await f.value(
                    "SELECT order_id || '/' || user_id || '/' || quantity FROM iap.deliveries WHERE transaction_id = '61'"
                )
                    == "lost/u1/1"
            )
            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'lost'") == "verified")
            #expect(
                try await f.value("SELECT assigned_order_id FROM iap.unclaimed_payments WHERE transaction_id = '61'")
                    == "lost"
            )
            #expect(try await OperatorQueries(connection: f.connection).status().unclaimedPayments == 0)
            #expect(
                try ReceiptdBinary.run(["unclaimed", "--database-url", url]).stdout.contains("No unclaimed payments.")
            )
        }
    }

    @Test func theGameServersAndOperatorsRolesMayCallTheirFunctions() async throws {
        try await Fixture.with { f in
            let app = try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_app"))
            _ = try await app.execute("SELECT iap.create_order('o1', 'u1', 'gems')")
            _ = try await app.execute("SELECT * FROM iap.owed_deliveries('u1')")
            _ = try await app.execute("SELECT iap.mark_granted('o1')")
            _ = try await app.execute("SELECT iap.mark_granted('o1', ARRAY['1'])")
            _ = try await app.execute("SELECT iap.close_order('o1')")
            let denied = await #expect(throws: PostgresError.self) {
                try await app.execute("SELECT iap.assign_payment('1', 'o1')")
            }
            #expect(denied?.sqlState == "42501")
            await app.close()
            let operatorConnection = try await PostgresConnection.connect(
                try await f.loginRole(in: "receiptd_operator")
            )
            _ = try await operatorConnection.execute("SELECT count(*) FROM iap.unclaimed_payments")
            let unknown = await #expect(throws: PostgresError.self) {
                try await operatorConnection.execute("SELECT iap.assign_payment('1', 'o1')")
            }
            #expect(unknown?.sqlState == "P0002")
            let notApp = await #expect(throws: PostgresError.self) {
                try await operatorConnection.execute("SELECT iap.create_order('o2', 'u1', 'gems')")
            }
            #expect(notApp?.sqlState == "42501")
            await operatorConnection.close()
        }
    }
}
