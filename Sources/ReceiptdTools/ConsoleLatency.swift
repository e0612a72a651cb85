import AsyncHTTPClient
import Foundation
import Logging
import ReceiptdConsole
import ReceiptdCore
import ServiceLifecycle

/// How fast the support console answers with a production-sized history: `ConsoleSeed` writes the orders, a
/// `ConsoleServer` of this build serves them on a login of the operator's role (as `receiptd console` does), and
/// an HTTP client in this process, signed in, asks for random orders' pages (`/order?id=`) and searches
/// (`/search?q=` a user id, an order id or a transaction id, in turn; one match answers 303, which is timed, not
/// followed). Each request is timed until its body has arrived.
package struct ConsoleLatency: Sendable, Codable {
    /// The latencies of one kind of request, in milliseconds.
    package struct Page: Sendable, Codable {
        /// Requests timed.
        package var count: Int
        /// Median.
        package var p50: Double
        /// 95th percentile: the goal is below 200 ms.
        package var p95: Double
        /// Slowest.
        package var max: Double
        /// Answers other than the page (200) or, for a search, its redirect (303).
        package var failures: Int

        /// Summarises `seconds` (nearest-rank percentiles) with `failures` bad answers.
        init(seconds: [Double], failures: Int) {
            let sorted = seconds.sorted()
            func percentile(_ fraction: Double) -> Double {
                guard !sorted.isEmpty else { return 0 }
                let rank = Int((fraction * Double(sorted.count)).rounded(.up))
                return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1] * 1000
            }
            count = sorted.count
            p50 = percentile(0.5)
            p95 = percentile(0.95)
            max = (sorted.last ?? 0) * 1000
            self.failures = failures
        }

        /// `p50/p95/max ms`, for the table.
        package var text: String {
            [p50, p95, max].map { String(format: $0 >= 100 ? "%.0f" : "%.1f", $0) }.joined(separator: "/")
        }
    }

    /// The goal of the issue: both kinds answer below this at the 95th percentile.
    package static let goalMilliseconds = 200.0

    /// Orders in the database.
    package var orders: Int
    /// Rows written besides the orders: jobs, attempts, ledger rows.
    package var jobs, attempts, deliveries: Int
    /// Seconds the seed took (the four tables and `ANALYZE`).
    package var seedSeconds: Double
    /// Requests in flight at once.
    package var concurrency: Int
    /// `GET /order?id=` of random existing orders.
    package var orderPage: Page
    /// `GET /search?q=` of a random user id, order id or transaction id.
    package var search: Page
    /// What the `--baseline` build measured: `n/a`, as builds before the console serve none; nil without one.
    package var baseline: String?

    /// Whether both kinds met the goal without a bad answer.
    package var meetsGoal: Bool {
        orderPage.failures == 0 && search.failures == 0 && orderPage.p95 < Self.goalMilliseconds
            && search.p95 < Self.goalMilliseconds
    }

    /// Seeds `orders` orders into the migrated, empty database `database` (its owner's connection string, user
    /// `postgres` of the throwaway cluster) and times `requests` requests of each kind, `concurrency` at once.
    package static func measure(
        connectionString: String,
        database: String,
        orders: Int,
        requests: Int = 300,
        concurrency: Int = 4,
        say: @Sendable (String) -> Void = { _ in }
    ) async throws -> ConsoleLatency {
        say("console: seeding \(orders) orders")
        let seedSeconds = try await ConsoleSeed.write(orders: orders, connectionString: connectionString)
        let owner = try await PostgresConnection.connect(connectionString)
        let counts: [Int]
        let targets: [String]
        let login: String
        do {
            counts = try await owner.execute(
                """
                SELECT (SELECT count(*) FROM iap.jobs) AS jobs, (SELECT count(*) FROM iap.attempts) AS attempts,
                       (SELECT count(*) FROM iap.deliveries) AS deliveries
                """
            ).namedRows.flatMap { [try $0.int("jobs"), try $0.int("attempts"), try $0.int("deliveries")] }
            targets = try await sample(owner, count: requests, orders: orders)
            // The console's own kind of login: a member of the operator's role (the cluster trusts 127.0.0.1).
            login = "\(database)_console"
            try await owner.execute("CREATE ROLE \(login) LOGIN IN ROLE receiptd_operator")
            await owner.close()
        } catch {
            await owner.close()
            throw error
        }
        say("console: seeded in \(String(format: "%.1f", seedSeconds)) s; \(requests) requests of each kind")
        // As `receiptd console` opens it: eight connections, statements bounded.
        let pool = ConsoleServer.databasePool(
            connectionString: connectionString.replacingOccurrences(of: "user=postgres", with: "user=\(login)"),
            applicationName: "receiptd console benchmark"
        )
        var settings = ConsoleSettings()
        settings.port = 0
        settings.insecureCookies = true
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let logger = Logger(label: "receiptd-console", factory: { _ in SwiftLogNoOpLogHandler() })
        let server = ConsoleServer(
            settings: settings,
            users: [],
            database: pool,
            logger: logger,
            onListening: { port in portContinuation.yield(port) }
        )
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let client = WebhookSender.makeClient(concurrency: concurrency)
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            do {
                var listening = ports.makeAsyncIterator()
                guard let port = await listening.next() else { throw ToolError("console: the server did not start") }
                let session = await server.authentication.startSession(
                    for: ConsoleUser(name: "benchmark", passwordHash: "", role: .viewer)
                )
                let base = "http://127.0.0.1:\(port)"
                let cookie = "\(ConsoleAuthentication.cookieName)=\(session.token)"
                let sampled = targets.count / 3
                let orderPaths = (0..<requests).map { "/order?id=" + encoded(targets[3 * ($0 % sampled)]) }
                // An order id, a user id and a transaction id in turn, of other orders than the pages'.
                let searchPaths = (0..<requests).map { index in
                    "/search?q=" + encoded(targets[3 * ((index + sampled / 2) % sampled) + index % 3])
                }
                _ = try await timeRequests(client, base: base, cookie: cookie, paths: Array(orderPaths.prefix(20)), 4)
                let orderTimes = try await timeRequests(
                    client,
                    base: base,
                    cookie: cookie,
                    paths: orderPaths,
                    concurrency
                )
                let searchTimes = try await timeRequests(
                    client,
                    base: base,
                    cookie: cookie,
                    paths: searchPaths,
                    concurrency
                )
                try await client.shutdown()
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                await pool.close()
                return ConsoleLatency(
                    orders: orders,
                    jobs: counts[0],
                    attempts: counts[1],
                    deliveries: counts[2],
                    seedSeconds: seedSeconds,
                    concurrency: concurrency,
                    orderPage: Page(seconds: orderTimes.seconds, failures: orderTimes.failures(accepting: [200])),
                    search: Page(seconds: searchTimes.seconds, failures: searchTimes.failures(accepting: [200, 303]))
                )
            } catch {
                try? await client.shutdown()
                await group.triggerGracefulShutdown()
                await pool.close()
                throw error
            }
        }
    }

    /// `count` random orders as `[order id, user id, transaction id or order id]` triples, flattened.
    private static func sample(_ connection: PostgresConnection, count: Int, orders: Int) async throws -> [String] {
        let percent = Swift.min(100, Double(count) * 300 / Double(Swift.max(orders, 1)))
        let rows = try await connection.execute(
            """
            SELECT o.order_id, o.user_id, coalesce(d.transaction_id, o.order_id) AS transaction_id
            FROM (SELECT order_id, user_id FROM iap.orders TABLESAMPLE BERNOULLI ($1::float8) LIMIT $2) o
            LEFT JOIN LATERAL (SELECT transaction_id FROM iap.deliveries d WHERE d.order_id = o.order_id LIMIT 1) d
                ON true
            ORDER BY random()
            """,
            [percent, count]
        ).namedRows
        let targets = try rows.flatMap {
            [try $0.string("order_id"), try $0.string("user_id"), try $0.string("transaction_id")]
        }
        guard !targets.isEmpty else { throw ToolError("console: no orders to ask for") }
        return targets
    }

    /// What a set of requests took, and how each answered.
    private struct Timings {
        var seconds: [Double] = []
        var statuses: [Int] = []

        func failures(accepting good: Set<Int>) -> Int { statuses.filter { !good.contains($0) }.count }
    }

    /// GETs every path, `concurrency` at once, each timed until its whole body arrived.
    private static func timeRequests(
        _ client: HTTPClient,
        base: String,
        cookie: String,
        paths: [String],
        _ concurrency: Int
    ) async throws -> Timings {
        try await withThrowingTaskGroup(of: Timings.self) { group in
            for worker in 0..<Swift.max(1, concurrency) {
                let mine = stride(from: worker, to: paths.count, by: Swift.max(1, concurrency)).map { paths[$0] }
                group.addTask {
                    var timings = Timings()
                    for path in mine {
                        var request = HTTPClientRequest(url: base + path)
                        request.headers.add(name: "Cookie", value: cookie)
                        let started = ContinuousClock.now
                        let response = try await client.execute(request, timeout: .seconds(30))
                        _ = try await response.body.collect(upTo: 16 * 1024 * 1024)
                        let elapsed = ContinuousClock.now - started
                        timings.seconds.append(
                            Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                        )
                        timings.statuses.append(Int(response.status.code))
                    }
                    return timings
                }
            }
            var all = Timings()
            for try await timings in group {
                all.seconds += timings.seconds
                all.statuses += timings.statuses
            }
            return all
        }
    }

    /// `text` as a query value: everything but unreserved characters percent-encoded.
    private static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
            )
        ) ?? text
    }
}
