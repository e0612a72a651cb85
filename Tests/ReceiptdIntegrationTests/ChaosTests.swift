import Foundation
import Logging
import ReceiptdTools
import Testing

/// The chaos run at CI size: real daemon processes, SIGKILLs, an immediate PostgreSQL restart, a database
/// outage longer than half the lease, forged cancel notifications, and a game transaction holding an order's
/// rows locked across more than a lease (other orders must keep settling meanwhile), and Google Play out while App
/// Store orders settle, with provisional grants on for trusted players' orders held up by a failing store, and
/// webhooks sent to a stand-in receiver throughout.
/// `swift run receiptd chaos --orders 5000 --daemons 4` runs it large.
@Suite struct ChaosTests {
    /// `swift test` builds the `receiptd` executable next to the test bundle.
    private var executable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("receiptd")
            .path
    }

    @Test func ordersSurviveKilledDaemonsADatabaseRestartAnOutageAndForgedCancels() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: executable), "receiptd not built at \(executable)")
        let run = ChaosRun(
            configuration: .init(daemons: 2, orders: 300, killInterval: 1.5, restartDatabase: true, timeLimit: 120),
            executable: executable,
            say: { _ in }
        )
        let report = try await run.run()
        #expect(report.violations.isEmpty, "\(report.summary)")
        #expect(report.kills >= 1)
        #expect(report.forgedCancels >= 1)
        #expect(report.gameTransactionSeconds >= 6)
        // Eight App Store and four Google Play subscriptions renewed twice each, every renewal found by the re-read:
        // each period its own order.
        #expect(report.subscriptionPeriods == 36, "\(report.summary)")
        #expect(report.orders == 350 + report.subscriptionPeriods)
        #expect(report.outcomes["full"] == 260 + report.subscriptionPeriods)
        // Google Play out: the App Store orders enqueued meanwhile all settled before it came back.
        #expect(report.settledDuringStoreOutage == 20)
        // A tenth of the orders are StoreKit 2 transactions, half of them looked up with the Server API.
        #expect(report.serverAPIRequests >= 15)
        // A tenth are Google Play purchases, each delivered and acknowledged exactly once (checked in the report).
        #expect(report.googleDeliveries == 30)
        // Provisional grants are on (Google players trusted too): orders held up more than a second by the
        // stores' faults and outages were granted provisionally, and each grant ended confirmed, refuted, or
        // cancelled by an operator cancelling its job or the game closing its order (the report's checks: none
        // left unconfirmed, one refuted, cancelled or replaced owed back or handled, a cancelled one costing no
        // trust, nothing owed twice). How many depends on the faults' timing.
        #expect(report.provisionalGranted > 0, "\(report.summary)")
        #expect(report.provisionalConfirmed > 0)
        #expect(report.provisionalCancelled > 0, "\(report.summary)")
        #expect(
            report.provisionalConfirmed + report.provisionalRefuted + report.provisionalCancelled
                == report.provisionalGranted
        )
        // Webhooks to a stand-in receiver throughout: every event delivered, every request verified, each order's
        // events first arriving in write order (the report's checks); at least an order.verified per paid order.
        #expect(report.webhookEvents >= 260, "\(report.summary)")
    }
}

/// The README's first command, `receiptd demo`, through its library.
@Suite struct DemoTests {
    @Test func theDemoSettlesEveryOrderAsItsScenarioSays() async throws {
        let (rows, ledger, unclaimed, webhooks) = try await DemoRun(
            logger: Logger(label: "demo", factory: { _ in SwiftLogNoOpLogHandler() }),
            say: { _ in }
        ).run()
        // Six of them the VIP passes': each store's checkout and two renewal orders.
        #expect(rows.count == 34)
        #expect(rows.filter { $0.orderID.hasPrefix("renewal:") }.count == 4)
        #expect(rows.filter { $0.orderID.hasPrefix("renewal:GPA.3500-") }.count == 2)
        #expect(rows.filter { $0.orderID.hasPrefix("demo-sk2-") }.count == 5)
        // Six from the client's tokens, and the one Google reported itself (then refunded).
        #expect(rows.filter { $0.orderID.hasPrefix("demo-gp-") }.count == 7)
        #expect(rows.contains { $0.orderID == "demo-gp-rtdn" && $0.outcome == "full" && $0.status == "finished" })
        for row in rows { #expect(row.isExpected, "\(row.orderID): \(row.outcome)/\(row.status)") }
        // A trusted player's order paid while the App Store answered 503: granted provisionally (the game granted
        // it), then confirmed once the store was back, its real transaction granted with it. On a loaded machine
        // demo-outage's retries may outlast the demo's 3 s too and be granted as well; every grant is confirmed.
        #expect(rows.contains { $0.orderID == "demo-trusted" && $0.provisional == "confirmed" })
        #expect(rows.allSatisfy { $0.provisional == nil || $0.provisional == "confirmed" })
        #expect(ledger == 23)
        // The shield nobody ordered, and the purchase another account made for an order bound to its own token.
        #expect(
            unclaimed == ["1000000013 (com.example.shield, user lena)", "2000000005 (com.example.gems100, user quinn)"]
        )

        // Webhooks: every event delivered to the stand-in receiver, each request's signature verified by its
        // Standard Webhooks checks, none acted on twice.
        #expect(webhooks.problems.isEmpty, "\(webhooks.problems)")
        #expect(webhooks.events.allSatisfy { $0.state == "delivered" })
        #expect(webhooks.received.allSatisfy { $0.verified })
        let acted = webhooks.delivered.map(\.id)
        #expect(Set(acted).count == acted.count)
        #expect(Set(acted) == Set(webhooks.events.map(\.id)))
        #expect(webhooks.received.filter { ($0.status ?? 0) / 100 == 2 }.count == webhooks.events.count)
        // What the steps write: an order.verified for each paid order, a provisional one before it for each
        // provisional grant, a delivery.revoked for each refund (Apple's and Google's), a payment.unclaimed for
        // each unclaimed payment, an order.failed for each invalid order.
        func orders(_ type: String, provisional: Bool = false) -> [String] {
            webhooks.events.filter { $0.type == type && $0.provisional == provisional }.compactMap(\.orderID).sorted()
        }
        let paid = rows.filter { ["full", "partial"].contains($0.outcome) }.map(\.orderID).sorted()
        #expect(paid.count == 23)
        #expect(orders("order.verified") == paid)
        #expect(
            orders("order.verified", provisional: true) == rows.filter { $0.provisional != nil }.map(\.orderID).sorted()
        )
        // Google's refund, and Apple's prorated refund of 40% (the row stays delivered).
        #expect(orders("delivery.revoked") == ["demo-gp-rtdn", "demo-sk2-signed"])
        let prorated = try #require(
            webhooks.delivered.first { $0.type == "delivery.revoked" && $0.body.contains("demo-sk2-signed") }
        )
        let data = try #require(
            (try JSONSerialization.jsonObject(with: Data(prorated.body.utf8)) as? [String: Any])?["data"]
                as? [String: Any]
        )
        #expect(data["revocation_percentage"] as? Int == 40_000 && data["reason"] as? String == "refund_prorated")
        #expect(data["revoked_at"] is NSNull && data["revoked_quantity"] as? Int == 0, "\(data)")
        #expect(orders("order.failed") == ["demo-forged", "demo-sk2-forged"])
        #expect(webhooks.events.filter { $0.type == "payment.unclaimed" }.count == unclaimed.count)
        #expect(webhooks.events.filter { $0.type == "delivery.reinstated" }.isEmpty)
        let provisional = rows.filter { $0.provisional != nil }.count
        // Both refund requests asked the game first (refund.requested): Apple's, which the policy answered when the
        // game was silent, and Google's chargeback review, which the game answered.
        let asked = try webhooks.delivered.filter { $0.type == "refund.requested" }.map { event in
            try #require(
                (try JSONSerialization.jsonObject(with: Data(event.body.utf8)) as? [String: Any])?["data"]
                    as? [String: Any]
            )
        }
        #expect(asked.compactMap { $0["store"] as? String }.sorted() == ["apple", "google"], "\(asked)")
        #expect(asked.allSatisfy { $0["delivered"] as? Bool == true && $0["granted"] as? Bool == true }, "\(asked)")
        // The App Store's VIP pass bought, renewed, in its grace period, recovered, renewal turned off, expired;
        // Google Play's bought, renewed, in its grace period, on hold, recovered, cancelled, expired.
        func subscriptionEvents(_ order: String) -> [String] {
            webhooks.events.filter { $0.type.hasPrefix("subscription.") && $0.orderID == order }.map(\.type)
        }
        #expect(
            subscriptionEvents("demo-vip") == [
                "subscription.started", "subscription.renewed", "subscription.state_changed", "subscription.renewed",
                "subscription.state_changed", "subscription.expired",
            ]
        )
        #expect(
            subscriptionEvents("demo-gvip") == [
                "subscription.started", "subscription.renewed", "subscription.state_changed",
                "subscription.state_changed", "subscription.renewed", "subscription.state_changed",
                "subscription.expired",
            ]
        )
        #expect(webhooks.events.filter { $0.type.hasPrefix("subscription.") }.count == 6 + 7)
        #expect(webhooks.events.count == 23 + provisional + 2 + 2 + 2 + 2 + 6 + 7)
        // The trusted player's order: the provisional grant's event, then the confirmation's, in that order.
        #expect(
            webhooks.events.filter { $0.orderID == "demo-trusted" }.map { $0.type + ($0.provisional ? "+p" : "") }
                == ["order.verified+p", "order.verified"]
        )
        // The receiver answered 503 twice before the trusted step: its first event was sent three times, acted on
        // once; no other event was retried.
        let retried = webhooks.events.filter { $0.attempts > 1 }
        #expect(retried.map(\.orderID) == ["demo-trusted"])
        #expect(retried.first.map { webhooks.answers(to: $0.id) } == ["503", "503", "204"])
        #expect(retried.first?.attempts == 3 && retried.first?.provisional == true)
    }
}
