import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

@Suite struct RetryTests {
    private func receipt(_ id: String, script: [ScriptStep]) -> String {
        Receipts.paying(id, script: script)
    }

    @Test func transientFailuresAreRetriedUntilDelivered() async throws {
        try await Fixture.with { f in
            let cases: [(String, [ScriptStep])] = [
                ("http-503", [.httpStatus(503)]),
                ("http-500", [.httpStatus(500)]),
                ("html-page", [.rawBody("<html><body>Service Unavailable</body></html>")]),
                ("status-21005", [.appleStatus(21005)]),
                ("status-21009", [.appleStatus(21009)]),
                ("status-21100", [.appleStatus(21100)]),
                ("status-21199-retryable", [.appleStatus(21199, isRetryable: true)]),
                ("status-21002-once", [.appleStatus(21002)]),
                ("reset", [.reset]),
                ("several", [.httpStatus(503), .reset, .appleStatus(21005)]),
            ]
            for (index, (order, script)) in cases.enumerated() {
                try await f.enqueue(order, user: "u\(index)", receipt: receipt("\(800 + index)", script: script))
            }
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            for (order, script) in cases {
                let row = try await f.order(order)
                #expect(row["outcome"] == "full", "\(order)")
                #expect(row["attempts"] == String(script.count + 1), "\(order)")
            }
        }
    }

    @Test func terminalAnswersAreNotRetried() async throws {
        try await Fixture.with { f in
            try await f.enqueue(
                "not-retryable",
                user: "a",
                receipt: receipt("901", script: [.appleStatus(21100, isRetryable: false)])
            )
            try await f.enqueue(
                "malformed",
                user: "b",
                receipt: receipt("902", script: Array(repeating: .appleStatus(21002), count: 5))
            )
            try await f.enqueue("expired", user: "c", receipt: SyntheticReceipt(status: 21006).encoded())
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let notRetryable = try await f.order("not-retryable")
            #expect(
                notRetryable["outcome"] == "invalid" && notRetryable["attempts"] == "1"
                    && notRetryable["state"] == "failed"
            )
            let malformed = try await f.order("malformed")
            #expect(malformed["outcome"] == "invalid" && malformed["attempts"] == "3")
            #expect(try await f.order("expired")["outcome"] == "invalid")
        }
    }

    @Test func anOrderFailsAfterMaxAttempts() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: receipt("1001", script: Array(repeating: .httpStatus(503), count: 10)))
            let settings = f.settings { $0.daemon.maxAttempts = 3 }
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            let row = try await f.order("o1")
            #expect(row["outcome"] == "failed")
            #expect(row["state"] == "failed")
            #expect(row["attempts"] == "3")
            #expect(row["last_error"]?.contains("503") == true)
            #expect(f.standIn.recordedRequests().count == 3)
        }
    }

    @Test func retryAfterIsHonoured() async throws {
        try await Fixture.with { f in
            let job = try await f.enqueue("o1", receipt: receipt("1101", script: [.httpStatus(429, retryAfter: "30")]))
            try await f.withDaemons { _ in
                try await f.waitUntil { try await f.value("SELECT attempts FROM iap.jobs WHERE id = $1", [job]) == "1" }
                try await f.waitUntil {
                    try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [job]) == "pending"
                }
            }
            let wait = try await f.value(
                "SELECT extract(epoch FROM run_at - now())::int FROM iap.jobs WHERE id = $1",
                [job]
            )
            #expect((Int(wait ?? "") ?? 0) >= 25)
            #expect(try await f.order("o1")["last_error"]?.contains("429") == true)
        }
    }

    @Test func aTimeoutIsRetried() async throws {
        try await Fixture.with { f in
            let job = try await f.enqueue(
                "o1",
                receipt: receipt("1201", script: [ScriptStep(delayMilliseconds: 8_000)])
            )
            let settings = f.settings { $0.apple.requestTimeout = .seconds(2) }
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("o1")["outcome"] == "full")
            let first = try await f.row(
                "SELECT result, error_class, duration_ms FROM iap.attempts WHERE job_id = $1 AND attempt = 1",
                [job]
            )
            #expect(first["result"] == "retry" && first["error_class"] == "transport")
            #expect((Int(first["duration_ms"] ?? "") ?? 0) < 7_000, "the timeout, not the stand-in, ended the call")
        }
    }

    @Test func anUnreachableAppleIsRetriedAndFails() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: Receipts.paying("1301"))
            let settings = f.settings {
                $0.apple.productionURL = "http://127.0.0.1:1/verifyReceipt"
                $0.apple.requestTimeout = .seconds(1)
                $0.daemon.maxAttempts = 2
            }
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            let row = try await f.order("o1")
            #expect(row["outcome"] == "failed")
            #expect(row["last_error"]?.hasPrefix("transport") == true)
        }
    }

    @Test func everyAttemptIsWrittenToTheHistory() async throws {
        try await Fixture.with { f in
            let job = try await f.enqueue(
                "o1",
                receipt: receipt("1401", script: [.httpStatus(503), .appleStatus(21005)])
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let rows = try await f.connection.execute(
                """
                SELECT attempt, result, http_status, apple_status, environment, error_class, daemon IS NOT NULL AS has_daemon,
                       duration_ms >= 0 AS timed
                FROM iap.attempts WHERE job_id = $1 ORDER BY attempt
                """,
                [job]
            ).namedRows
            #expect(rows.map { $0["attempt"] } == ["1", "2", "3"])
            #expect(rows.map { $0["result"] } == ["retry", "retry", "verified"])
            #expect(rows.map { $0["http_status"] } == ["503", "200", "200"])
            #expect(rows.map { $0["apple_status"] } == [nil, "21005", "0"])
            #expect(rows.map { $0["environment"] } == [nil, "Production", "Production"])
            #expect(rows.map { $0["error_class"] } == ["http", "apple_status", nil])
            #expect(rows.allSatisfy { $0["has_daemon"] == "t" && $0["timed"] == "t" })
        }
    }
}
