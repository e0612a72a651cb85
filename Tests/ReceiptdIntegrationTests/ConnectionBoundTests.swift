import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// `RECEIPTD_DB_CONNECTIONS` bounds every connection a daemon opens besides its `LISTEN` connection: the claims,
/// settles and lease work, the Google acknowledgements, the voided poll and the `/readyz` checks all share one pool.
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
            let database = f.database
            // Counts the daemon's backends every few milliseconds until cancelled: the peak, and how many samples.
            let sampler = Task {
                let connection = try await database.connect()
                var (peak, samples) = (0, 0)
                while !Task.isCancelled {
                    let count =
                        try await connection.execute(
                            "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1",
                            [application]
                        ).first?.int("n") ?? 0
                    peak = max(peak, count)
                    samples += 1
                    try? await Task.sleep(for: .milliseconds(5))
                }
                await connection.close()
                return (peak, samples)
            }
            defer { sampler.cancel() }
            try await f.withDaemons(settings: settings) { daemons in
                // `/readyz` checks, asked all along as a monitor would, use the same pool.
                let probe = daemons[0].makeDatabaseProbe()
                let readiness = Task {
                    var answers: [Bool] = []
                    while !Task.isCancelled {
                        answers.append(await probe.check())
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                    return answers
                }
                defer { readiness.cancel() }
                try await f.waitUntilSettled()
                google.void(token: tokens[0].encoded(), orderID: "GPA.900", reason: 1)
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.google_finalizations WHERE done_at IS NOT NULL")
                        == "\(tokens.count)"
                }
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.deliveries WHERE revoked_at IS NOT NULL") == "1"
                }
                readiness.cancel()
                let answers = await readiness.value
                #expect(answers.count > 5 && answers.allSatisfy { $0 }, "\(answers)")
            }
            sampler.cancel()
            let (peak, samples) = try await sampler.value
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE outcome = 'full'") == "\(tokens.count)")
            #expect(samples > 10)
            // Seen at all (the pool and the listener), and never more than the pool's three and the listener.
            #expect(peak >= 2, "\(peak)")
            #expect(peak <= 3 + 1, "\(peak)")
        }
    }
}
