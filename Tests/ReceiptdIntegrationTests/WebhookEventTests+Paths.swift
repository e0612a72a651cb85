import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// The events written through the project's real paths: running daemons settling receipts and signed transactions
/// from the stand-in stores, processing Apple's and Google's notifications, and an operator's assignment; each event
/// is then sent to the stand-in receiver.
extension WebhookEventTests {
    /// Waits until a daemon started with a webhook URL has published that changes write events.
    static func waitUntilConfigured(_ f: Fixture) async throws {
        try await f.waitUntil { try await f.value("SELECT configured::text FROM iap.webhook_endpoint") == "true" }
    }

    /// Waits until `count` events are written and every one is delivered.
    static func waitUntilDelivered(_ f: Fixture, count: Int) async throws {
        try await f.waitUntil {
            try await f.value(
                "SELECT count(*) || '/' || count(*) FILTER (WHERE state = 'delivered') FROM iap.webhook_events"
            ) == "\(count)/\(count)"
        }
    }

    /// Whether any event's `data` holds `text` (a receipt, a token, a signed transaction must never be sent).
    static func anyPayloadContains(_ f: Fixture, _ text: String) async throws -> Bool {
        try await f.value("SELECT count(*) FROM iap.webhook_events WHERE strpos(payload::text, $1) > 0", [text]) != "0"
    }

    @Test func aSettleAFailureAnUnclaimedPaymentAndAnAssignmentWriteTheirEvents() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            let settings = try f.webhookSettings(receiver) {
                $0.daemon.maxAttempts = 3
                $0.daemon.unclaimedSince = Date(timeIntervalSince1970: 0)
            }
            let paying = Receipts.paying("5001")
            let forged = SyntheticReceipt(status: 21003).encoded()
            let failing = SyntheticReceipt(
                inApp: [Receipts.purchase("5003")],
                script: Array(repeating: .httpStatus(503), count: 10)
            ).encoded()
            // A receipt of u4's order of gems carrying only a shield nobody ordered.
            let stray = SyntheticReceipt(inApp: [Receipts.purchase("5004", product: "shield")]).encoded()
            try await f.withDaemons(settings: settings) { _ in
                try await Self.waitUntilConfigured(f)
                try await f.enqueue("o-paid", receipt: paying)
                try await f.enqueue("o-forged", user: "u2", receipt: forged)
                try await f.enqueue("o-failing", user: "u3", receipt: failing)
                try await f.enqueue("o-stray", user: "u4", receipt: stray)
                try await f.waitUntilSettled()
                // An operator gives the payment to the order it was meant for.
                try await f.connection.execute("SELECT iap.create_order('lost', 'u4', 'shield')")
                _ = try await OperatorQueries(connection: f.connection).assign(transactionID: "5004", to: "lost")
                try await Self.waitUntilDelivered(f, count: 5)
            }
            #expect(
                try await Self.written(f).sorted() == [
                    "order.failed o-failing", "order.failed o-forged", "order.verified lost", "order.verified o-paid",
                    "payment.unclaimed o-stray",
                ]
            )
            let events = try await f.connection.execute("SELECT type, order_id FROM iap.webhook_events ORDER BY seq")
                .namedRows
            func data(of type: String, _ order: String) async throws -> [String: String] {
                let index = try #require(events.firstIndex { $0["type"] == type && $0["order_id"] == order })
                return try await Self.data(f, index)
            }
            let paid = try await data(of: "order.verified", "o-paid")
            #expect(paid["user_id"] == "u1" && paid["store"] == "apple" && paid["provisional"] == "false")
            #expect(paid["deliveries"]?.contains(#""transaction_id": "5001""#) == true)
            #expect(try await data(of: "order.failed", "o-forged")["outcome"] == "invalid")
            let failed = try await data(of: "order.failed", "o-failing")
            #expect(failed["outcome"] == "failed" && failed["user_id"] == "u3" && failed["delivered_quantity"] == "0")
            let unclaimed = try await data(of: "payment.unclaimed", "o-stray")
            #expect(
                Set(unclaimed.keys) == [
                    "store", "transaction_id", "original_transaction_id", "product_id", "quantity", "purchase_date",
                    "environment", "user_id", "order_id", "app_account_token",
                ]
            )
            #expect(
                unclaimed["transaction_id"] == "5004" && unclaimed["product_id"] == "shield"
                    && unclaimed["user_id"] == "u4" && unclaimed["order_id"] == "o-stray"
                    && unclaimed["store"] == "apple" && unclaimed["quantity"] == "1"
            )
            let assigned = try await data(of: "order.verified", "lost")
            #expect(
                assigned["user_id"] == "u4" && assigned["deliveries"]?.contains(#""transaction_id": "5004""#) == true
            )
            // Nothing secret: no receipt is in any event.
            for receipt in [paying, forged, failing, stray] {
                #expect(try await Self.anyPayloadContains(f, receipt) == false)
            }
            // Each was sent once, signed, and taken.
            let delivered = receiver.delivered()
            #expect(delivered.count == 5 && delivered.filter(\.verified).count == 5)
        }
    }

    @Test func anAppleRefundSentAgainIsOneRevocationAndAReversalAndANewRefundWriteTheirs() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            let jws = f.standIn.testChain.signedTransaction(
                SignedTransactionPayload(transactionId: "8001", productId: "gems")
            )
            let refunded = {
                SignedTransactionPayload(
                    transactionId: "8001",
                    productId: "gems",
                    revocationDate: SignedTransactionPayload.nowMilliseconds(),
                    revocationReason: 1
                )
            }
            try await f.withDaemons(settings: try f.webhookSettings(receiver)) { _ in
                try await Self.waitUntilConfigured(f)
                try await f.enqueue("o1", user: "alice", transaction: jws)
                try await f.waitUntilSettled()
                try await f.expectProcessed(
                    try await f.recordNotification("REFUND", transaction: refunded()),
                    "revoked"
                )
                // Apple sends the refund again: recorded, and no second revocation.
                try await f.expectProcessed(
                    try await f.recordNotification("REFUND", transaction: refunded()),
                    "revoked"
                )
                let reversal = SignedTransactionPayload(transactionId: "8001", productId: "gems")
                try await f.expectProcessed(
                    try await f.recordNotification("REFUND_REVERSED", transaction: reversal),
                    "reinstated"
                )
                try await f.expectProcessed(
                    try await f.recordNotification("REFUND", transaction: refunded()),
                    "revoked"
                )
                try await Self.waitUntilDelivered(f, count: 4)
            }
            #expect(
                try await Self.written(f) == [
                    "order.verified o1", "delivery.revoked o1", "delivery.reinstated o1", "delivery.revoked o1",
                ]
            )
            let revoked = try await Self.data(f, 1)
            #expect(Set(revoked.keys) == Self.revokedFields)
            #expect(
                revoked["transaction_id"] == "8001" && revoked["user_id"] == "alice" && revoked["store"] == "apple"
                    && revoked["reason"] == "refund_app_issue" && revoked["revoked_quantity"] == "1"
                    && revoked["granted"] == "false"
            )
            #expect(try await Self.data(f, 2)["transaction_id"] == "8001")
            // No signed transaction is in any event.
            #expect(try await Self.anyPayloadContains(f, "eyJ") == false)
            // Sent in the order written: the events of one order wait for the one before.
            let types = try await Self.written(f).map { String($0.prefix { $0 != " " }) }
            #expect(receiver.delivered().map(\.type) == types)
        }
    }

    @Test func googleRefundsInPartAndWholeAndAPaymentNobodyOrderedWriteTheirEvents() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            var sending = settings
            var webhooks = WebhookConfiguration(
                url: receiver.url,
                secrets: try WebhookSecrets(fileText: Fixture.webhookSecret)
            )
            webhooks.pollInterval = .milliseconds(100)
            sending.webhooks = webhooks
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.400", quantity: 3).encoded()
            let stray = SyntheticPurchaseToken(
                productID: "gems",
                orderID: "GPA.200",
                quantity: 2,
                accountID: "acct-nobody"
            ).encoded()
            try await f.withDaemons(settings: sending) { _ in
                try await Self.waitUntilConfigured(f)
                try await f.connection.execute(
                    "SELECT iap.enqueue_google_purchase('o4', 'alice', 'gems', $1, 3, NULL)",
                    [token]
                )
                try await f.waitUntilSettled()
                google.void(token: token, orderID: "GPA.400", reason: 1, quantity: 1)
                let partial = try await f.recordGoogleVoided(token: token, orderID: "GPA.400", refundType: 2)
                try await f.expectProcessed(partial, "partly_revoked")
                let whole = try await f.recordGoogleVoided(token: token, orderID: "GPA.400", refundType: 1)
                try await f.expectProcessed(whole, "revoked")
                try await f.expectProcessed(try await f.recordGoogleOneTime(1, token: stray), "charge_unclaimed")
                try await Self.waitUntilDelivered(f, count: 4)
            }
            #expect(
                try await Self.written(f) == [
                    "order.verified o4", "delivery.revoked o4", "delivery.revoked o4", "payment.unclaimed -",
                ]
            )
            let verified = try await Self.data(f, 0)
            #expect(verified["store"] == "google" && verified["deliveries"]?.contains(#""quantity": 3"#) == true)
            let partly = try await Self.data(f, 1)
            #expect(
                partly["transaction_id"] == "GPA.400" && partly["revoked_quantity"] == "1" && partly["quantity"] == "3"
                    && partly["revoked_at"] == "null"
            )
            let rest = try await Self.data(f, 2)
            #expect(rest["revoked_quantity"] == "3" && rest["reason"] == "voided")
            let unclaimed = try await Self.data(f, 3)
            #expect(
                unclaimed["store"] == "google" && unclaimed["transaction_id"] == "GPA.200"
                    && unclaimed["quantity"] == "2"
                    && unclaimed["user_id"] == "null" && unclaimed["purchase_token"] == nil
            )
            // Purchase tokens are credentials: in no event.
            for secret in [token, stray] { #expect(try await Self.anyPayloadContains(f, secret) == false) }
        }
    }
}
