import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// A batch of owed acknowledgements slower than the lease: the rows its daemon has not reached yet may go to
/// another daemon, and still each purchase is acknowledged once.
@Suite struct GoogleFinalizerLeaseTests {
    @Test func aBatchSlowerThanTheLeaseAcknowledgesEachPurchaseOnce() async throws {
        // Every Google call takes 300 ms; ten acknowledgements in one batch take three leases of one second.
        try await Fixture.withGooglePlayStandIn(.init(latency: 300)) { f, google, settings in
            let tokens = (0..<10).map { SyntheticPurchaseToken(productID: "gems", orderID: "GPA.80\($0)") }
            for (index, token) in tokens.enumerated() {
                try await f.enqueue("slow-\(index)", user: "u\(index)", googleToken: token)
            }
            // Settled first, with Google refusing acknowledgements, so that all ten are owed at once.
            google.failFinalizations(1_000_000)
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilSettled()
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.google_finalizations WHERE attempts > 0") == "10"
                }
            }
            google.failFinalizations(0)
            try await f.connection.execute(
                """
                UPDATE iap.google_finalizations SET run_at = now(), attempts = 0, locked_by = NULL, locked_until = NULL, last_error = NULL
                """
            )
            var leased = settings
            leased.daemon.lease = .seconds(1)
            try await f.withDaemons(count: 2, settings: leased) { _ in
                try await f.waitUntil(timeout: .seconds(60)) {
                    try await f.value("SELECT count(*) FROM iap.google_finalizations WHERE done_at IS NOT NULL") == "10"
                }
                // Long enough for a daemon still working through a stale batch to make a call it should not.
                try await Task.sleep(for: .seconds(2))
            }
            let acknowledged = google.recordedFinalizations().filter { $0.httpStatus == 200 }
            for token in tokens {
                #expect(acknowledged.filter { $0.token == token.encoded() }.count == 1, "\(token.orderID ?? "")")
            }
            #expect(acknowledged.count == 10)
        }
    }
}
