import Foundation
import ReceiptdCore
import ReceiptdTools
import Testing

/// The benchmark's notification row, run small in debug: the code path posts pre-signed notifications and counts
/// only committed ones.
@Suite struct NotificationIntakeThroughputTests {
    @Test func theBenchmarkPathCountsCommittedNotifications() async throws {
        try await Fixture.with { f in
            let result = try await NotificationIntakeThroughput.measure(
                connectionString: f.database.connectionString,
                chain: f.standIn.testChain,
                notifications: 24,
                connections: 4,
                databaseConnections: 2
            )
            #expect(result.correct && result.notifications == 24 && result.acceptedPerSecond > 0, "\(result)")
            #expect(try await f.value("SELECT count(*) FROM iap.store_notifications WHERE source = 'push'") == "24")
        }
    }
}
