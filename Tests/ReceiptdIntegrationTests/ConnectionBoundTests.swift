import FakeAppStore
import Foundation
import ReceiptdCore
import Synchronization
import Testing

/// `RECEIPTD_DB_CONNECTIONS` bounds every connection a daemon opens besides its `LISTEN` connection: the claims,
/// settles and lease work, the Google acknowledgements and the voided poll all share one pool.
@Suite struct ConnectionBoundTests {
    @Test func aDaemonWithGooglePlayStaysWithinItsConnections() async throws {
        let application = "receiptd_bound_\(UInt32.random(in: 0...UInt32.max))"
        try await Fixture.withGooglePlayStandIn(
            .init(latency: 20),
            settings: {
                $0.databaseURL += " application_name=\(application)"
                $0.daemon.databaseConnections = 3
                $0.googlePlay.voidedInterval = .milliseconds(200)
            }
        ) { f, google, settings in
            let tokens = (0..<24).map { SyntheticPurchaseToken(productID: "gems", orderID: "GPA.90\($0)") }
            for (index, token) in tokens.enumerated() {
                try await f.enqueue("bound-\(index)", user: "u\(index)", googleToken: token)
            }
            let sampler = f.database
            let most = Mutex(0)
            let samples = Mutex(0)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let connection = try await sampler.connect()
                    while !Task.isCancelled {
                        let count =
                            try await connection.execute(
                                "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1",
                                [application]
                            ).first?.int("n") ?? 0
                        most.withLock { $0 = max($0, count) }
                        samples.withLock { $0 += 1 }
                        try? await Task.sleep(for: .milliseconds(5))
                    }
                    await connection.close()
                }
                try await f.withDaemons(settings: settings) { _ in
                    try await f.waitUntilSettled()
                    google.void(token: tokens[0].encoded(), orderID: "GPA.900", reason: 1)
                    try await f.waitUntil {
                        try await f.value("SELECT count(*) FROM iap.google_finalizations WHERE done_at IS NOT NULL")
                            == "\(tokens.count)"
                    }
                    try await f.waitUntil {
                        try await f.value("SELECT count(*) FROM iap.deliveries WHERE revoked_at IS NOT NULL") == "1"
                    }
                }
                group.cancelAll()
            }
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE outcome = 'full'") == "\(tokens.count)")
            #expect(samples.withLock { $0 } > 10)
            let peak = most.withLock { $0 }
            // Seen at all (the pool and the listener), and never more than the pool's three and the listener.
            #expect(peak >= 2, "\(peak)")
            #expect(peak <= 3 + 1, "\(peak)")
        }
    }
}
