import FakeAppStore
import Foundation
import Logging
import ReceiptdCore

#if canImport(Glibc)
import Glibc
#endif

/// How many webhook events one daemon delivers per second to a local receiver: one `receiptd run` process of this
/// build (its webhook defaults: 32 in flight) sends events to a stand-in receiver in this process, which checks
/// every signature. The events are written beforehand in one `INSERT` into `iap.webhook_events` as the table owner,
/// one `order.verified` for an order of its own each, not by settling orders: the row measures delivery, not
/// the settles that write events (the other rows measure those).
package struct WebhookThroughput: Sendable, Codable {
    /// Events written and to be delivered.
    package var events: Int
    /// Daemon processes sending (one).
    package var daemons: Int
    /// Events each daemon sends at once (`WebhookConfiguration.concurrency`).
    package var concurrency: Int
    /// Seconds from the `INSERT`'s commit to the last `delivered_at`.
    package var seconds: Double
    /// Events delivered (recorded `delivered`) per second over that span.
    package var deliveredPerSecond: Double
    /// The daemon's CPU seconds (user + system) per 1,000 events.
    package var cpuSecondsPer1000Events: Double
    /// PostgreSQL's CPU seconds (the postmaster and every backend) per 1,000 events; 0 when not measured.
    package var postgresCPUSecondsPer1000Events: Double
    /// The benchmark process's CPU seconds per 1,000 events: the receiver's checks, mostly.
    package var receiverCPUSecondsPer1000Events: Double
    /// Whether every event was recorded delivered, taken by the receiver, and every request verified.
    package var correct: Bool
    /// What the `--baseline` build measured: `n/a`, as builds before webhooks send none; nil without a baseline.
    package var baseline: String?

    /// Starts `executable run` on the migrated database at `connectionString` (the stand-in App Store as its
    /// Apple), writes `events` events, and waits up to `timeLimit` for all of them to be delivered. With the
    /// `postmaster` pid, PostgreSQL's CPU is measured too.
    package static func measure(
        executable: String,
        connectionString: String,
        standIn: AppStoreStandIn,
        events: Int,
        postmaster: pid_t? = nil,
        timeLimit: Duration = .seconds(600)
    ) async throws -> WebhookThroughput {
        let secretFile = try WebhookSecretFile()
        defer { secretFile.remove() }
        let receiver = WebhookReceiverStandIn(
            secrets: secretFile.secrets,
            logger: Logger(label: "fake-webhook-receiver", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        _ = try await receiver.start()
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "receiptd-bench-webhooks-\(getpid())-\(UUID().uuidString.prefix(8)).log"
        ).path
        let daemon: DaemonProcess
        do {
            daemon = try DaemonProcess(
                executable: executable,
                environment: DaemonProcess.environment(
                    database: connectionString,
                    standIn: standIn,
                    overrides: secretFile.environment(url: receiver.url)
                ),
                logPath: logPath
            )
        } catch {
            try? await receiver.shutdown()
            throw error
        }
        var connection: PostgresConnection?
        do {
            let open = try await PostgresConnection.connect(connectionString)
            connection = open
            let result = try await measure(
                daemon,
                receiver: receiver,
                connection: open,
                events: events,
                concurrency: WebhookConfiguration(url: receiver.url, secrets: secretFile.secrets).concurrency,
                postmaster: postmaster,
                timeLimit: timeLimit
            )
            _ = await daemon.terminate(timeout: .seconds(10))
            await open.close()
            try await receiver.shutdown()
            try? FileManager.default.removeItem(atPath: logPath)
            return result
        } catch {
            if daemon.isRunning { daemon.kill9() }
            await connection?.close()
            try? await receiver.shutdown()
            throw ToolError("webhook throughput: \(error) (daemon log: \(logPath))")
        }
    }

    private static func measure(
        _ daemon: DaemonProcess,
        receiver: WebhookReceiverStandIn,
        connection: PostgresConnection,
        events: Int,
        concurrency: Int,
        postmaster: pid_t?,
        timeLimit: Duration
    ) async throws -> WebhookThroughput {
        try await waitUntilSending(connection: connection)
        let cpuBefore = (
            postgres: postmaster.map { ProcessStats.treeCPUSeconds(root: $0) } ?? 0,
            own: ProcessStats(pid: getpid())?.cpuSeconds ?? 0
        )
        // One statement, and the doorbell the triggers would ring, in its transaction.
        try await connection.execute(
            """
            WITH written AS (
                INSERT INTO iap.webhook_events (id, type, order_id, user_id, payload)
                SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), 'order.verified', 'bench-webhook-' || i,
                       'bench-player-' || (i % 1000),
                       jsonb_build_object('order_id', 'bench-webhook-' || i, 'user_id', 'bench-player-' || (i % 1000),
                           'store', 'apple', 'provisional', false,
                           'deliveries', jsonb_build_array(jsonb_build_object(
                               'transaction_id', (8000000000 + i)::text, 'product_id', 'com.example.gems100',
                               'quantity', 1, 'purchase_date', now(), 'environment', 'Production')))
                FROM generate_series(1, $1::int) AS i
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM written) AS n, pg_notify('iap_webhooks', '')
            """,
            [events]
        )
        let committed =
            try await connection.execute("SELECT extract(epoch FROM clock_timestamp())::float8 AS t").first?["t"]
            .flatMap(Double.init) ?? 0
        // The receiver's count first (cheap, and no load on the database), then the recorded states, which follow
        // in batches. The end is the last `delivered_at`, not when this loop notices.
        let deadline = ContinuousClock.now + timeLimit
        var undelivered = events
        while ContinuousClock.now < deadline {
            if receiver.received().count >= events {
                undelivered =
                    try await connection.execute(
                        "SELECT count(*) AS n FROM iap.webhook_events WHERE state <> 'delivered'"
                    ).first?.int("n") ?? events
                if undelivered == 0 { break }
            }
            guard daemon.isRunning else { throw ToolError("the daemon exited while sending") }
            try await Task.sleep(for: .milliseconds(200))
        }
        // Read before the daemon exits: /proc forgets it once it is reaped.
        let daemonCPU = ProcessStats(pid: daemon.pid)?.cpuSeconds ?? 0
        let postgresCPU = postmaster.map { ProcessStats.treeCPUSeconds(root: $0) - cpuBefore.postgres } ?? 0
        let ownCPU = (ProcessStats(pid: getpid())?.cpuSeconds ?? 0) - cpuBefore.own
        let last =
            try await connection.execute(
                "SELECT extract(epoch FROM max(delivered_at))::float8 AS t FROM iap.webhook_events"
            ).first?["t"].flatMap(Double.init) ?? committed
        let ids = Set(
            try await connection.execute("SELECT id FROM iap.webhook_events").rows.compactMap { $0[0] }
        )
        let received = receiver.received()
        let taken = Set(receiver.delivered().map(\.id))
        let seconds = max(last - committed, 0)
        let perThousand = { (cpu: Double) in events > 0 ? cpu / Double(events) * 1000 : 0 }
        return WebhookThroughput(
            events: events,
            daemons: 1,
            concurrency: concurrency,
            seconds: seconds,
            deliveredPerSecond: seconds > 0 ? Double(events - undelivered) / seconds : 0,
            cpuSecondsPer1000Events: perThousand(daemonCPU),
            postgresCPUSecondsPer1000Events: perThousand(postgresCPU),
            receiverCPUSecondsPer1000Events: perThousand(ownCPU),
            correct: undelivered == 0 && ids.count == events && taken == ids && received.allSatisfy(\.verified)
        )
    }

    /// Waits until the daemon has published that it sends webhooks and its `LISTEN` is up, so the clock does
    /// not include its start.
    private static func waitUntilSending(connection: PostgresConnection) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let row = try await connection.execute(
                """
                SELECT (SELECT configured FROM iap.webhook_endpoint) AS configured,
                       (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%') AS listening
                """
            ).first
            if try row?.bool("configured") == true, try (row?.int("listening") ?? 0) > 0 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ToolError("the daemon did not start sending webhooks within 30 s")
    }
}
