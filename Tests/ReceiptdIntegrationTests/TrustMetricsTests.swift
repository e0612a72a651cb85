import Foundation
import Prometheus
import ReceiptdCore
import Testing

/// The gauges of the trust levels, as a daemon's `/metrics` serves them.
@Suite struct TrustMetricsTests {
    @Test func theDaemonSamplesProvisionalGrantsAndUntrustedUsers() async throws {
        try await Fixture.with { f in
            for (index, order) in ["open", "paid", "refuted", "old"].enumerated() {
                try await f.enqueue(order, user: "u\(index)", receipt: Receipts.paying(String(index + 1)))
            }
            try await f.connection.execute(
                """
                INSERT INTO iap.provisional_grants (order_id, user_id, store, product_id, quantity, cause, state,
                                                    resolved_at, refuted_by)
                SELECT o.order_id, o.user_id, 'apple', o.product_id, o.quantity, 'store_failing', g.state,
                       now() - make_interval(hours => g.hours), g.refuted_by::iap.outcome
                FROM iap.orders o
                JOIN (VALUES ('paid', 'confirmed', 1, NULL), ('refuted', 'refuted', 3, 'invalid'),
                             ('old', 'refuted', 26, 'unmatched')) AS g (order_id, state, hours, refuted_by)
                  USING (order_id)
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.provisional_grants (order_id, user_id, store, product_id, quantity, cause)
                SELECT order_id, user_id, 'apple', product_id, quantity, 'breaker_open' FROM iap.orders
                WHERE order_id = 'open'
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.user_trust (user_id, store, trusted, reason) VALUES
                    ('a1', 'apple', false, 'invalid'), ('a2', 'apple', true, 'restored'),
                    ('g1', 'google', false, 'replay'), ('g2', 'google', false, 'initial')
                """
            )
            let registry = PrometheusCollectorRegistry()
            let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
            func gauge(_ name: String, _ label: String) -> Double? {
                var bytes: [UInt8] = []
                registry.emit(into: &bytes)
                return String(decoding: bytes, as: UTF8.self).split(separator: "\n")
                    .first { $0.hasPrefix(name + "{") && $0.contains(label) }
                    .flatMap { Double($0.split(separator: " ").last ?? "") }
            }
            try await f.withDaemons(metrics: metrics) { _ in
                try await f.waitUntil { gauge("receiptd_untrusted_users", "store=\"google\"") != nil }
                #expect(gauge("receiptd_provisional_grants", "state=\"unconfirmed\"") == 1)
                #expect(gauge("receiptd_provisional_grants", "state=\"confirmed\"") == 1)
                #expect(gauge("receiptd_provisional_grants", "state=\"refuted\"") == 1)
                #expect(gauge("receiptd_untrusted_users", "store=\"apple\"") == 1)
                #expect(gauge("receiptd_untrusted_users", "store=\"google\"") == 2)

                // The next sample, a refresh interval later, sees the change.
                try await f.connection.execute(
                    "UPDATE iap.user_trust SET trusted = false, reason = 'invalid' WHERE user_id = 'a2'"
                )
                try await f.waitUntil(timeout: TrustKeeper.figuresInterval * 2) {
                    gauge("receiptd_untrusted_users", "store=\"apple\"") == 2
                }
            }
        }
    }
}
