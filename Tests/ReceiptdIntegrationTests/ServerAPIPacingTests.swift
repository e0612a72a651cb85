import FakeAppStore
import Foundation
import Prometheus
import ReceiptdCore
import Testing

/// Issue 47, item 5: the App Store Server API is paced, and blocked by a `Retry-After`, per endpoint, as Apple limits
/// it: one 429 on one endpoint leaves the others flowing.
@Suite struct ServerAPIPacingTests {
    /// The app account token the transaction-id purchases are enqueued with and carry.
    private static let token = UUID()

    /// A subscription read answered 429 with an hour's `Retry-After` blocks Get All Subscription Statuses alone:
    /// transaction ids are still looked up and consumption answers still sent, and the block shows under the
    /// endpoint's name in `iap.stuck_jobs`, `receiptd status` and the metrics.
    @Test func aRateLimitOnTheStatusesLeavesLookupsAndConsumptionAnswersFlowing() async throws {
        try await Fixture.with { f in
            let registry = PrometheusCollectorRegistry()
            let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
            try await f.withDaemons(metrics: metrics) { _ in
                try await SubscriptionRenewalTests().subscribe(f, "7300")
                let hourAhead = Int64((Date().timeIntervalSince1970 + 3600) * 1000)
                f.standIn.scriptSubscriptionStatuses([ScriptStep(retryAfter: String(hourAhead), errorCode: 4_290_000)])
                try await f.connection.execute("UPDATE iap.subscriptions SET read_due_at = now()")
                try await f.waitUntil {
                    try await f.value(
                        "SELECT string_agg(api, ',') FROM iap.api_pacing WHERE blocked_until > now() + interval '50 minutes'"
                    ) == "apple_subscription_statuses"
                }
                for index in 1...3 {
                    f.standIn.register(
                        SignedTransactionPayload(
                            transactionId: "730\(index)",
                            productId: "gems",
                            environment: "Production",
                            appAccountToken: Self.token.uuidString.lowercased()
                        )
                    )
                    try await f.enqueue(
                        "bought-\(index)",
                        user: "b\(index)",
                        transaction: "730\(index)",
                        appAccountToken: Self.token
                    )
                }
                try await ConsumptionAnswerTests.request(f, "7310", user: "u1")
                try await f.waitUntil(timeout: .seconds(20)) {
                    let bought = try await f.value(
                        "SELECT count(*) FROM iap.orders WHERE order_id LIKE 'bought-%' AND outcome = 'full'"
                    )
                    let answered = try await f.value(
                        "SELECT state FROM iap.consumption_requests WHERE transaction_id = '7310'"
                    )
                    return bought == "3" && answered == "sent"
                }
            }
            let calls = f.standIn.recordedServerAPIRequests()
            let statuses = calls.filter { $0.endpoint == .subscriptionStatuses }
            #expect(statuses.map(\.httpStatus) == [429], "\(calls)")
            #expect(
                calls.filter { $0.endpoint == .transactionInfo }.map(\.transactionID).sorted()
                    == ["7301", "7302", "7303"]
            )
            #expect(f.standIn.recordedConsumptionRequests().map(\.httpStatus) == [202])
            // The block, still on, shows under the endpoint's name.
            let stuck = try await f.connection.execute(
                "SELECT last_error FROM iap.stuck_jobs WHERE reason = 'api_blocked'"
            ).namedRows
            #expect(
                stuck.count == 1
                    && stuck.first?["last_error"]?.hasPrefix("apple_subscription_statuses asked not to be called")
                        == true,
                "\(stuck)"
            )
            let status = try await OperatorQueries(connection: f.connection).status()
            #expect(status.blockedAPIs.map(\.api) == ["apple_subscription_statuses"])
            var bytes: [UInt8] = []
            registry.emit(into: &bytes)
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            #expect(
                lines.filter { $0.hasPrefix("receiptd_server_api_blocks_total{") }
                    == ["receiptd_server_api_blocks_total{api=\"apple_subscription_statuses\"} 1"],
                "\(lines)"
            )
        }
    }

    /// Apple's sandbox limits are its own: a sandbox 429 with an hour's `Retry-After` holds the consumption answer that
    /// got it, and blocks nothing, so production's answers keep flowing.
    @Test func aSandboxRateLimitHoldsNoProductionCall() async throws {
        try await Fixture.with { f in
            let hourAhead = Int64((Date().timeIntervalSince1970 + 3600) * 1000)
            f.standIn.scriptConsumption([ScriptStep(retryAfter: String(hourAhead), errorCode: 4_290_000)])
            try await f.withDaemons { _ in
                try await ConsumptionAnswerTests.request(f, "7401", user: "u1", environment: "Sandbox")
                try await f.waitUntil { f.standIn.recordedConsumptionRequests().count == 1 }
                try await ConsumptionAnswerTests.request(f, "7402", user: "u2")
                try await f.waitUntil(timeout: .seconds(20)) {
                    try await f.value("SELECT state FROM iap.consumption_requests WHERE transaction_id = '7402'")
                        == "sent"
                }
            }
            let sent = f.standIn.recordedConsumptionRequests()
            #expect(
                sent.map { "\($0.transactionID) \($0.environment) \($0.httpStatus)" } == [
                    "7401 sandbox 429", "7402 production 202",
                ]
            )
            #expect(try await f.value("SELECT count(*) FROM iap.api_pacing WHERE blocked_until > now()") == "0")
            let held = try await f.row(
                "SELECT state, last_error FROM iap.consumption_requests WHERE transaction_id = '7401'"
            )
            #expect(held["state"] != "sent" && held["last_error"]?.contains("429") == true, "\(held)")
        }
    }

    /// Every endpoint has its row, named as `AppStoreServerEndpoint` names it, and no other.
    @Test func everyEndpointHasItsPacingRow() async throws {
        try await Fixture.with { f in
            let rows = try await f.value("SELECT string_agg(api, ',' ORDER BY api) FROM iap.api_pacing")
            #expect(rows == AppStoreServerEndpoint.allCases.map(\.rawValue).sorted().joined(separator: ","))
        }
    }
}
