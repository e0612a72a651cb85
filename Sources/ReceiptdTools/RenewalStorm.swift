import AsyncHTTPClient
import FakeAppStore
import Foundation
import ReceiptdCore
import ReceiptdTestKit

#if canImport(Glibc)
import Glibc
#endif

/// A renewal storm on the seeded database (issue #48, items 3 and 4), one store's at a time: its ``RenewalStormSource``
/// picks subscriptions and prepares their renewals' requests, every one signed before the timing starts. One
/// `receiptd run` of the build under test serves the intake (`RECEIPTD_NOTIFICATIONS_ADDR`) behind a trusted proxy
/// on loopback (`RECEIPTD_TRUSTED_PROXIES`), with both stores' stand-ins in this process and the Server API's
/// credentials set as in production. Once it listens and has settled, `pg_stat_statements` is reset and the requests
/// are posted over `connections` connections, each timed, each naming its own client in `X-Forwarded-For` as the
/// store's many senders would reach the proxy. The timing ends when the source's condition holds (or the cap runs
/// out); then the daemon's and PostgreSQL's CPU, the daemon's peak RSS, the store calls, the costliest statements and
/// whether every new period was delivered exactly once are read.
package enum RenewalStorm {
    /// Client connections posting at once.
    package static let connections = 32
    /// The longest a storm is waited for after its first post.
    package static let cap: Duration = .seconds(300)
    /// The storms' renewals, one row per renewal, in the seeded database beside the daemon's schema (its own name;
    /// the daemon never reads it): what the completion and exactly-once queries join to the ledger.
    static let table = "public.renewal_storm"

    /// Runs `source`'s storm of up to `renewals` renewals with `executable run` on the seeded database `database` of a
    /// cluster that preloads `pg_stat_statements` (`postmaster` its pid), the stores' settings in `storeEnvironment`.
    /// Nil when the source found nothing to renew.
    package static func measure(
        _ source: any RenewalStormSource,
        renewals: Int,
        executable: String,
        context: Context,
        database: String,
        postmaster: pid_t,
        storeEnvironment: [String: String],
        cap: Duration = Self.cap,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> RenewalStormFigures? {
        let connection = try await PostgresConnection.connect(context.connectionString)
        do {
            // "already exists" is no news, and libpq would print it on stderr.
            try await connection.execute("SET client_min_messages = warning")
            try await connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            try await connection.execute(
                """
                CREATE TABLE IF NOT EXISTS \(table) (
                    store text NOT NULL, subscription_id text NOT NULL, transaction_id text NOT NULL,
                    previous_end timestamptz NOT NULL, entitled_before timestamptz, PRIMARY KEY (store, transaction_id))
                """
            )
            say("\(source.name): preparing up to \(renewals) renewals, every request signed beforehand")
            let plan = try await source.prepare(renewals: renewals, context: context)
            guard !plan.renewals.isEmpty else {
                say("\(source.name): no subscription to renew; skipped")
                await connection.close()
                return nil
            }
            try await record(plan.renewals, store: source.store, connection: connection)
            let figures = try await run(
                source,
                plan: plan,
                executable: executable,
                context: context,
                connection: connection,
                database: database,
                postmaster: postmaster,
                storeEnvironment: storeEnvironment,
                cap: cap,
                say: say
            )
            await connection.close()
            return figures
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Replaces the store's rows of `table` with `renewals`, and the subscriptions' entitlement before the storm.
    private static func record(_ renewals: [Renewal], store: Store, connection: PostgresConnection) async throws {
        let rows = String(decoding: try JSONEncoder().encode(renewals), as: UTF8.self)
        try await connection.execute("DELETE FROM \(table) WHERE store = $1", [store.rawValue])
        try await connection.execute(
            """
            INSERT INTO \(table) (store, subscription_id, transaction_id, previous_end, entitled_before)
            SELECT $1, r.subscription_id, r.transaction_id, to_timestamp(r.previous_end_ms / 1000.0), s.entitled_until
            FROM jsonb_to_recordset($2::jsonb) AS r (subscription_id text, transaction_id text, previous_end_ms bigint)
            LEFT JOIN iap.subscriptions s ON s.subscription_id = r.subscription_id
            """,
            [store.rawValue, rows]
        )
        try await connection.execute("ANALYZE \(table)")
    }

    private static func run(
        _ source: any RenewalStormSource,
        plan: Plan,
        executable: String,
        context: Context,
        connection: PostgresConnection,
        database: String,
        postmaster: pid_t,
        storeEnvironment: [String: String],
        cap: Duration,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> RenewalStormFigures {
        let port = try LoopbackPort.free()
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "receiptd-bench-storm-\(source.store.rawValue)-\(getpid())-\(UUID().uuidString.prefix(8)).log"
        ).path
        let environment = storeEnvironment.merging(source.daemonEnvironment(context: context)) { $1 }.merging([
            "RECEIPTD_NOTIFICATIONS_ADDR": "127.0.0.1:\(port)", "RECEIPTD_TRUSTED_PROXIES": "127.0.0.1",
        ]) { $1 }
        let daemon = try DaemonProcess(
            executable: executable,
            environment: DaemonProcess.environment(
                database: context.connectionString,
                standIn: context.appStore,
                overrides: environment
            ),
            logPath: logPath
        )
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        do {
            let url = "http://127.0.0.1:\(port)\(source.intakePath)"
            try await waitUntilServing(daemon, url: url, client: client, connection: connection, database: database)
            let figures = try await storm(
                source,
                plan: plan,
                daemon: daemon,
                url: url,
                client: client,
                context: context,
                connection: connection,
                database: database,
                postmaster: postmaster,
                cap: cap,
                say: say
            )
            _ = await daemon.terminate(timeout: .seconds(10))
            try await client.shutdown()
            return figures
        } catch {
            if daemon.isRunning { daemon.kill9() }
            try? await client.shutdown()
            say("\(source.name) failed; the daemon's log is \(logPath)")
            throw error
        }
    }

    /// Until the daemon listens on the database and its intake answers, then 5 s more: its start (the first pass of
    /// every sweep) is not the storm.
    private static func waitUntilServing(
        _ daemon: DaemonProcess,
        url: String,
        client: HTTPClient,
        connection: PostgresConnection,
        database: String
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let listening =
                try await connection.execute(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'",
                    [database]
                ).first?.int("n") ?? 0
            if listening > 0, (try? await client.execute(HTTPClientRequest(url: url), timeout: .seconds(2))) != nil {
                break
            }
            guard ContinuousClock.now < deadline, daemon.isRunning else {
                throw LoadError("the storm's daemon did not listen and serve its intake within 60 s")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        try await Task.sleep(for: .seconds(5))
    }

    private static func storm(
        _ source: any RenewalStormSource,
        plan: Plan,
        daemon: DaemonProcess,
        url: String,
        client: HTTPClient,
        context: Context,
        connection: PostgresConnection,
        database: String,
        postmaster: pid_t,
        cap: Duration,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> RenewalStormFigures {
        let renewals = plan.renewals.count
        let name = source.name
        try await connection.execute("SELECT pg_stat_statements_reset()")
        let before = (
            daemon: ProcessStats(pid: daemon.pid)?.cpuSeconds ?? 0,
            postgres: ProcessStats.treeCPUSeconds(root: postmaster),
            calls: source.storeCalls(context: context)
        )
        say(
            plan.requests.isEmpty
                ? "\(name): nothing to post; waiting for the ledger"
                : "\(name): posting \(plan.requests.count) requests over \(connections) connections"
        )
        let started = ContinuousClock.now
        let posted = try await post(plan.requests, to: url, client: client)
        if !plan.requests.isEmpty {
            say(
                String(
                    format: "%@: %d of %d accepted in %.1f s; waiting for the ledger",
                    name,
                    posted.accepted,
                    renewals,
                    posted.seconds
                )
            )
        }
        let deadline = started + cap
        var progress = Progress(settled: 0, moved: 0, rereadsDue: 0)
        var polls = 0
        var lastSaid = ContinuousClock.now
        while true {
            // The full condition joins every renewal to the ledger: asked when nothing is left to work, and every 5 s.
            polls += 1
            if try await quiet(connection) || polls % 10 == 0 {
                progress = try await source.progress(connection: connection)
                if progress.complete(of: renewals) { break }
            }
            guard ContinuousClock.now < deadline else { break }
            guard daemon.isRunning else { throw LoadError("the storm's daemon exited during the storm") }
            if ContinuousClock.now - lastSaid >= .seconds(30) {
                lastSaid = ContinuousClock.now
                say("\(name): \(progress.settled) of \(renewals) settled so far")
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        let elapsed = (ContinuousClock.now - started).seconds
        guard let after = ProcessStats(pid: daemon.pid) else {
            throw LoadError("the storm's daemon exited during the storm")
        }
        let postgres = ProcessStats.treeCPUSeconds(root: postmaster) - before.postgres
        let calls = source.storeCalls(context: context) - before.calls
        let statements = try await IdleDaemonCost.statements(connection: connection, database: database, limit: 8)
        let delivered = try await deliveries(store: source.store, connection: connection)
        let per1000 = { (cpu: Double) in cpu / Double(renewals) * 1000 }
        let figures = RenewalStormFigures(
            store: source.store,
            renewals: renewals,
            connections: connections,
            seconds: elapsed,
            renewalsPerSecond: elapsed > 0 ? Double(progress.settled) / elapsed : 0,
            goalPerSecond: source.goalPerSecond,
            postingSeconds: posted.seconds,
            accepted: posted.accepted,
            intakeP50Milliseconds: percentile(posted.latencies, 0.5),
            intakeP99Milliseconds: percentile(posted.latencies, 0.99),
            settled: progress.settled,
            moved: progress.moved,
            rereadsDue: progress.rereadsDue,
            daemonCPUSecondsPer1000: per1000(after.cpuSeconds - before.daemon),
            postgresCPUSecondsPer1000: per1000(postgres),
            storeCalls: calls,
            daemonPeakRSSBytes: after.peakResidentBytes,
            exactlyOnce: delivered.once == renewals,
            deliveredWrongly: delivered.wrong,
            timedOut: !progress.complete(of: renewals),
            statements: statements
        )
        say(
            String(
                format: "%@: %d of %d settled in %.1f s (%.0f/s)%@, %.2f store calls per renewal",
                name,
                progress.settled,
                renewals,
                elapsed,
                figures.renewalsPerSecond,
                figures.timedOut ? ", TIMED OUT" : "",
                figures.storeCallsPerRenewal
            )
        )
        return figures
    }

    /// No notification waits and no job is pending or running: the storm may be over (two index probes).
    private static func quiet(_ connection: PostgresConnection) async throws -> Bool {
        try await connection.execute(
            """
            /* renewal_storm: the benchmark's own */
            SELECT NOT EXISTS (SELECT 1 FROM iap.store_notifications WHERE processed_at IS NULL)
               AND NOT EXISTS (SELECT 1 FROM iap.jobs WHERE state IN ('pending', 'running')) AS quiet
            """
        ).first?.bool("quiet") ?? false
    }

    /// The condition for `store`'s renewals in `table`.
    package static func ledgerProgress(store: Store, connection: PostgresConnection) async throws -> Progress {
        let row = try await connection.execute(
            """
            SELECT count(*) FILTER (WHERE EXISTS (
                       SELECT 1 FROM iap.deliveries d
                       WHERE d.store = r.store AND d.transaction_id = r.transaction_id
                         AND d.order_id = 'renewal:' || r.transaction_id)) AS settled,
                   count(*) FILTER (WHERE s.entitled_until > coalesce(r.entitled_before, '-infinity')) AS moved,
                   count(*) FILTER (WHERE s.read_due_at <= now()) AS rereads_due
            FROM \(table) r LEFT JOIN iap.subscriptions s ON s.subscription_id = r.subscription_id
            WHERE r.store = $1
            """,
            [store.rawValue]
        ).first
        return Progress(
            settled: try row?.int("settled") ?? 0,
            moved: try row?.int("moved") ?? 0,
            rereadsDue: try row?.int("rereads_due") ?? 0
        )
    }

    /// Of `store`'s renewals: how many new periods are exactly one ledger row of the subscription past its previous
    /// end, that row their own and of their `renewal:<transaction_id>` order, and that order paid by no other row; and
    /// how many are more than one row, or a row of another id or order (paid twice, or wrongly).
    static func deliveries(
        store: Store,
        connection: PostgresConnection
    ) async throws -> (once: Int, wrong: Int) {
        let row = try await connection.execute(
            """
            WITH r AS (SELECT * FROM \(table) WHERE store = $1),
            periods AS (
                SELECT r.transaction_id, count(d.transaction_id) AS rows,
                       count(d.transaction_id) FILTER (WHERE d.transaction_id = r.transaction_id
                                                         AND d.order_id = 'renewal:' || r.transaction_id) AS own,
                       (SELECT count(*) FROM iap.deliveries o WHERE o.order_id = 'renewal:' || r.transaction_id) AS paid
                FROM r LEFT JOIN iap.deliveries d
                    ON d.store = r.store AND d.subscription_id = r.subscription_id AND d.period_end > r.previous_end
                GROUP BY r.transaction_id
            )
            SELECT count(*) FILTER (WHERE rows = 1 AND own = 1 AND paid = 1) AS once,
                   count(*) FILTER (WHERE rows > 1 OR rows > own OR paid > 1) AS wrong
            FROM periods
            """,
            [store.rawValue]
        ).first
        return (try row?.int("once") ?? 0, try row?.int("wrong") ?? 0)
    }

    /// Posts every request over `connections` workers, each its own client behind the proxy; a post the intake did
    /// not answer 200 is tried again, up to four more times (the store would retry later). Returns the posts answered
    /// 200, each successful post's milliseconds, and the seconds it all took.
    private static func post(
        _ requests: [Request],
        to url: String,
        client: HTTPClient
    ) async throws -> (accepted: Int, latencies: [Double], seconds: Double) {
        let start = ContinuousClock.now
        let results = try await withThrowingTaskGroup(of: (accepted: Int, latencies: [Double]).self) { workers in
            for worker in 0..<connections {
                workers.addTask {
                    var accepted = 0
                    var latencies: [Double] = []
                    // 17.0.0.0/8 is Apple's; any address does, one per sender.
                    let sender = "17.0.\(worker / 250).\(worker % 250 + 1)"
                    for index in stride(from: worker, to: requests.count, by: connections) {
                        var request = HTTPClientRequest(url: url)
                        request.method = .POST
                        request.headers.add(name: "Content-Type", value: "application/json")
                        request.headers.add(name: "X-Forwarded-For", value: sender)
                        for (name, value) in requests[index].headers { request.headers.add(name: name, value: value) }
                        request.body = .bytes(requests[index].body)
                        for attempt in 0..<5 {
                            let sent = ContinuousClock.now
                            if (try? await send(request, client: client)) == 200 {
                                accepted += 1
                                latencies.append((ContinuousClock.now - sent).seconds * 1000)
                                break
                            }
                            if attempt < 4 { try await Task.sleep(for: .milliseconds(100)) }
                        }
                    }
                    return (accepted, latencies)
                }
            }
            return try await workers.reduce(into: (accepted: 0, latencies: [Double]())) {
                $0.accepted += $1.accepted
                $0.latencies += $1.latencies
            }
        }
        return (results.accepted, results.latencies, (ContinuousClock.now - start).seconds)
    }

    /// The status code of `request`'s answer, its body read.
    private static func send(_ request: HTTPClientRequest, client: HTTPClient) async throws -> UInt {
        let response = try await client.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 16)
        return response.status.code
    }

    private static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
