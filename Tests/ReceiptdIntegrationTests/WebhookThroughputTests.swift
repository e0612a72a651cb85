import Foundation
import ReceiptdCore
import ReceiptdTools
import Testing

/// The benchmark's webhook row, run small in debug: a `receiptd run` process delivers events written in one INSERT
/// to the stand-in receiver, and the row counts only events recorded delivered, taken, and verified.
@Suite struct WebhookThroughputTests {
    /// `swift test` builds the `receiptd` executable next to the test bundle.
    private var executable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("receiptd")
            .path
    }

    @Test func theBenchmarkPathDeliversEveryEventVerified() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: executable), "receiptd not built at \(executable)")
        try await Fixture.with { f in
            let result = try await WebhookThroughput.measure(
                executable: executable,
                connectionString: f.database.connectionString,
                standIn: f.standIn,
                events: 300,
                timeLimit: .seconds(60)
            )
            #expect(result.correct && result.events == 300 && result.deliveredPerSecond > 0, "\(result)")
            #expect(result.daemons == 1 && result.concurrency == 32)
            #expect(
                try await f.value("SELECT count(*) FROM iap.webhook_events WHERE state = 'delivered' AND attempts = 1")
                    == "300"
            )
        }
    }
}
