import FakeAppStore
import Foundation
import ReceiptdCore

extension BenchmarkScenarioRun {
    /// Enqueue → the Apple request starting at the stand-in, for single orders spaced out on idle daemons.
    func idleLatency(connection: PostgresConnection, samples: Int) async throws -> LatencySummary? {
        guard samples > 0 else { return nil }
        var seconds: [Double] = []
        for index in 0..<samples {
            let receipt = probeReceipt("idle-\(index)", delay: 0)
            let enqueued = try await enqueue(order: "idle-\(index)", receipt: receipt, on: connection)
            let request = try await firstRequest { $0.receiptData == receipt }
            seconds.append(request.receivedAt.timeIntervalSince1970 - enqueued)
            try await Task.sleep(for: .milliseconds(150))
        }
        return LatencySummary(seconds: seconds)
    }

    /// A newer receipt's enqueue → the abandoned request cancelled and the new one started (the later of the two).
    func replaceLatency(connection: PostgresConnection, samples: Int) async throws -> LatencySummary? {
        guard samples > 0 else { return nil }
        var seconds: [Double] = []
        for index in 0..<samples {
            let order = "replace-\(index)"
            let slow = probeReceipt(order, delay: 30_000)
            let newer = probeReceipt(order + "-newer", delay: 0)
            _ = try await enqueue(order: order, receipt: slow, on: connection)
            _ = try await firstRequest { $0.receiptData == slow }
            let enqueued = try await enqueue(order: order, receipt: newer, on: connection)
            let started = try await firstRequest { $0.receiptData == newer }
            let cancelled = try await firstRequest { $0.receiptData == slow && $0.abortedAt != nil }
            let done = max(started.receivedAt, cancelled.abortedAt ?? started.receivedAt)
            seconds.append(done.timeIntervalSince1970 - enqueued)
            try await Task.sleep(for: .milliseconds(150))
        }
        return LatencySummary(seconds: seconds)
    }

    /// Enqueues one order and returns its job's `created_at` (seconds since 1970).
    private func enqueue(order: String, receipt: String, on connection: PostgresConnection) async throws -> Double {
        let id =
            try await connection.execute(
                "SELECT iap.enqueue_receipt($1, $2, $3, $4, 1) AS id",
                [order, "probe-" + order, LoadOrderFactory.product, receipt]
            ).first?.int("id") ?? 0
        // The job row is visible only after the enqueue's statement, hence a second one.
        let row = try await connection.execute(
            "SELECT extract(epoch FROM created_at)::float8 AS t FROM iap.jobs WHERE id = $1",
            [id]
        ).first
        guard let created = Double(row?["t"] ?? "") else { throw LoadError("enqueue of \(order) returned no job") }
        return created
    }

    /// Polls the stand-in's log for a call; gives up after 10 s.
    private func firstRequest(_ matches: (RecordedRequest) -> Bool) async throws -> RecordedRequest {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let request = standIn.recordedRequests().last(where: matches) { return request }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw LoadError("probe: the stand-in saw no matching call within 10 s")
    }

    private func probeReceipt(_ tag: String, delay: Int) -> String {
        let now = String(Int64(Date().timeIntervalSince1970 * 1000))
        let id = String(UInt64.random(in: 1_000_000_000_000...9_999_999_999_999))
        return SyntheticReceipt(
            bundleID: "bench.\(tag)",
            inApp: [
                SyntheticTransaction(
                    transactionID: id,
                    productID: LoadOrderFactory.product,
                    purchaseDateMilliseconds: now
                )
            ],
            delayMilliseconds: delay
        ).encoded()
    }
}
