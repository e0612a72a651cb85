import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import Testing

@Suite struct DaemonTests {
    @Test func twoDaemonsShareTheWorkWithoutDoingAnyTwice() async throws {
        try await Fixture.with { f in
            let orders = 300
            for index in 0..<orders {
                try await f.enqueue("o\(index)", user: "u\(index % 40)", receipt: Receipts.paying("\(100_000 + index)"))
            }
            let settings = f.settings { $0.daemon.claimBatchSize = 7 }
            var identities: [String] = []
            try await f.withDaemons(count: 2, settings: settings) { daemons in
                identities = daemons.map(\.identity)
                try await f.waitUntilSettled(timeout: .seconds(60))
            }
            #expect(Set(identities).count == 2)
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE outcome = 'full'") == String(orders))
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE attempts <> 1") == "0")
            let requests = f.standIn.recordedRequests()
            #expect(requests.count == orders)
            #expect(Set(requests.map(\.receiptData)).count == orders)
        }
    }

    @Test func gracefulShutdownReturnsUnfinishedJobsToPending() async throws {
        try await Fixture.with { f in
            let slow = try await f.enqueue("slow", receipt: Receipts.paying("2001", delay: 10_000))
            let quick = try await f.enqueue("quick", user: "u2", receipt: Receipts.paying("2002", delay: 300))
            let settings = f.settings { $0.daemon.shutdownGrace = .seconds(4) }
            let started = ContinuousClock.now
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.jobs WHERE state = 'running'") == "2"
                }
            }
            #expect(ContinuousClock.now - started < .seconds(12))
            let slowRow = try await f.row("SELECT state, attempts, locked_by FROM iap.jobs WHERE id = $1", [slow])
            #expect(slowRow["state"] == "pending" && slowRow["attempts"] == "0" && slowRow["locked_by"] == nil)
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [quick]) == "succeeded")
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE state = 'running'") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE transaction_id = '2001'") == "0")
        }
    }

    @Test func jobsOfADeadDaemonAreReclaimedAfterTheLease() async throws {
        try await Fixture.with { f in
            let job = try await f.enqueue("o1", receipt: Receipts.paying("3001"))
            try await f.connection.execute(
                """
                UPDATE iap.jobs SET state = 'running', attempts = 1, locked_by = 'gone:1:dead',
                    heartbeat_at = now() - interval '2 minutes' WHERE id = $1
                """,
                [job]
            )
            let settings = f.settings { $0.daemon.lease = .seconds(11) }
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            let row = try await f.order("o1")
            #expect(row["outcome"] == "full")
            #expect(row["attempts"] == "2")
        }
    }

    @Test func secretsNeverReachTheLog() async throws {
        try await Fixture.with(sharedSecret: "something-else") { f in
            try await f.enqueue("o1", receipt: Receipts.paying("4001"))
            try await f.enqueue("o2", user: "u2", receipt: Receipts.paying("4002", script: [.httpStatus(503)]))
            let lines = CapturingLogHandler.Lines()
            try await f.withDaemons(logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await f.waitUntilSettled()
            }
            #expect(lines.all.count > 3)
            #expect(lines.all.contains { $0.contains("o1") })
            #expect(!lines.all.contains { $0.contains(Fixture.sharedSecret) })
            #expect(!lines.all.contains { $0.contains(Receipts.paying("4001").prefix(24)) })
        }
    }

    @Test func databaseErrorsDoNotShowThePassword() async throws {
        let error = await #expect(throws: PostgresError.self) {
            _ = try await PostgresConnection.connect(
                "postgresql://receiptd:hunter2-secret@127.0.0.1:1/iap?connect_timeout=2"
            )
        }
        #expect(error?.kind == .connection)
        #expect(error.map { !"\($0)".contains("hunter2") } == true)
    }
}
