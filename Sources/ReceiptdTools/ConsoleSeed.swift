import Foundation
import ReceiptdCore

/// A production-sized history for the console's benchmark row, written with set-based SQL: `orders` orders
/// (three in ten by 3,000 heavy players, the rest by players with two orders on average, most with one to three),
/// a job each and a second for one in ten (its first failed), attempts for every job that ran, and a ledger row
/// for every `full` order, spread over 90 days. Every value is derived from the order's number `i`, so the four
/// tables are written independently, in ranges of `i` on parallel connections, with every index, constraint and
/// trigger in place (webhooks are not configured, so their triggers write nothing).
enum ConsoleSeed {
    /// The shape of order `i`, shared by the statements below: its user, quantity, product, time, outcome, input
    /// kind, and whether it had two jobs.
    private static let shape = """
        CROSS JOIN LATERAL (
            SELECT CASE WHEN i <= $3::int * 3 / 10 THEN 'whale-' || (i % 3000)
                        ELSE 'player-' || mod(abs(hashint4(i + 7)), greatest($3::int * 7 / 20, 1)) END AS user_id,
                   1 + (i % 10 = 0)::int AS quantity,
                   (ARRAY['com.example.gems100', 'com.example.gems500', 'com.example.shield'])[1 + i % 3] AS product_id,
                   now() - make_interval(secs => mod(abs(hashint4(i + 11)), 90 * 86400)) AS at,
                   CASE WHEN mod(abs(hashint4(i)), 1000) < 900 THEN 'full'
                        WHEN mod(abs(hashint4(i)), 1000) < 940 THEN 'failed'
                        WHEN mod(abs(hashint4(i)), 1000) < 960 THEN 'invalid'
                        WHEN mod(abs(hashint4(i)), 1000) < 980 THEN 'unmatched' END::iap.outcome AS outcome,
                   mod(abs(hashint4(i)), 1000) < 720 AS granted,
                   CASE mod(i, 7) WHEN 0 THEN 'google_purchase' WHEN 1 THEN 'transaction' WHEN 2 THEN 'transaction'
                        ELSE 'receipt' END AS kind,
                   mod(abs(hashint4(i + 13)), 10) = 0 AS retried
        ) AS s
        """

    /// The jobs of order `i` (`n` = 1, and 2 when it was retried), with explicit ids `2i - 2 + n`, so that the
    /// attempts and the ledger name them without reading them back; each with the order's input (a receipt, a
    /// transaction id or a purchase token) and its SHA-256, as `enqueue_job` writes them.
    private static let jobs = """
        CROSS JOIN LATERAL generate_series(1, 1 + s.retried::int) AS n
        CROSS JOIN LATERAL (
            SELECT 2::bigint * i - 2 + n AS id,
                   CASE WHEN n = 1 AND s.retried THEN 'failed' WHEN s.outcome IS NULL THEN 'pending'
                        WHEN s.outcome IN ('full', 'unmatched') THEN 'succeeded' ELSE 'failed' END AS state,
                   CASE WHEN n = 1 AND s.retried THEN 3 WHEN s.outcome IS NULL THEN i % 3
                        WHEN s.outcome IN ('full', 'unmatched') THEN 1 + (i % 20 = 0)::int ELSE 3 END AS attempts,
                   CASE WHEN s.outcome = 'invalid' AND NOT (n = 1 AND s.retried) THEN 'apple: status 21002'
                        ELSE 'http: HTTP 503' END AS error,
                   s.at + make_interval(secs => 60 * (n - 1)) AS at,
                   CASE s.kind WHEN 'google_purchase' THEN 'seedtoken' || md5(i::text)
                        WHEN 'transaction' THEN (3000000000000000 + i)::text ELSE 'TUlJU2VlZA' || md5(i::text) END
                       AS input
        ) AS j
        """

    /// The statements, each over `i` in `$1 … $2` of `$3` orders.
    static let statements = [
        """
        INSERT INTO iap.orders (order_id, user_id, product_id, quantity, created_at, checkout_at, outcome,
                                delivered_quantity, outcome_at, status)
        SELECT 'order-' || i, s.user_id, s.product_id, s.quantity, s.at, s.at, s.outcome,
               CASE WHEN s.outcome = 'full' THEN s.quantity ELSE 0 END,
               CASE WHEN s.outcome IS NOT NULL THEN s.at + interval '3 seconds' END,
               CASE WHEN s.outcome IS DISTINCT FROM 'full' THEN 'pending' WHEN s.granted THEN 'finished'
                    ELSE 'verified' END::iap.order_status
        FROM generate_series($1::int, $2::int) AS i
        \(shape)
        """,
        """
        INSERT INTO iap.jobs (id, order_id, kind, receipt_data, receipt_sha256, state, attempts, run_at, last_error,
                              environment, created_at, started_at, finished_at, submitted_by)
        SELECT j.id, 'order-' || i, s.kind, j.input, encode(sha256(convert_to(j.input, 'UTF8')), 'hex'), j.state,
               j.attempts, j.at,
               CASE WHEN j.state = 'failed' OR (j.state = 'pending' AND j.attempts > 0) THEN j.error END,
               CASE WHEN j.state = 'succeeded' THEN 'Production' END, j.at, j.at,
               CASE WHEN j.state <> 'pending' THEN j.at + interval '2 seconds' END, s.user_id
        FROM generate_series($1::int, $2::int) AS i
        \(shape)
        \(jobs)
        """,
        """
        INSERT INTO iap.attempts (job_id, order_id, attempt, daemon, started_at, finished_at, duration_ms, environment,
                                  apple_status, http_status, result, error_class, error)
        SELECT j.id, 'order-' || i, a, 'seed-host:1:bench', j.at + make_interval(secs => a - 1),
               j.at + make_interval(secs => a - 1) + interval '180 milliseconds', 180,
               CASE WHEN j.state = 'succeeded' AND a = j.attempts THEN 'Production' END,
               CASE WHEN j.error LIKE 'apple:%' AND a = j.attempts THEN 21002 END,
               CASE WHEN j.state = 'succeeded' AND a = j.attempts THEN 200 ELSE 503 END,
               CASE WHEN j.state = 'succeeded' AND a = j.attempts THEN 'verified'
                    WHEN j.error LIKE 'apple:%' AND a = j.attempts THEN 'rejected'
                    WHEN j.state = 'failed' AND a = j.attempts THEN 'abandoned' ELSE 'retry' END,
               CASE WHEN j.state = 'succeeded' AND a = j.attempts THEN NULL
                    WHEN j.error LIKE 'apple:%' AND a = j.attempts THEN 'apple_status' ELSE 'http' END,
               CASE WHEN j.state = 'succeeded' AND a = j.attempts THEN NULL ELSE j.error END
        FROM generate_series($1::int, $2::int) AS i
        \(shape)
        \(jobs)
        CROSS JOIN LATERAL generate_series(1, j.attempts) AS a
        """,
        """
        INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, purchase_date, environment,
                                    job_id, delivered_at, granted_at, store)
        SELECT CASE s.kind WHEN 'google_purchase' THEN 'GPA.3372-' || (1000000000 + i)
                    WHEN 'transaction' THEN (3000000000000000 + i)::text ELSE (2000000000000000 + i)::text END,
               'order-' || i, s.user_id, s.product_id, s.quantity, s.at, 'Production', 2::bigint * i - 1 + s.retried::int,
               s.at + interval '3 seconds', CASE WHEN s.granted THEN s.at + interval '10 seconds' END,
               CASE WHEN s.kind = 'google_purchase' THEN 'google' ELSE 'apple' END
        FROM generate_series($1::int, $2::int) AS i
        \(shape)
        WHERE s.outcome = 'full'
        """,
    ]

    /// Writes `orders` orders into the migrated, empty database at `connectionString`, on `connections` parallel
    /// connections: the orders first (the jobs' foreign key reads them), then the jobs, attempts and ledger; the
    /// jobs' identity continues after the ids written; then `ANALYZE`. Returns the seconds it took.
    static func write(orders: Int, connectionString: String, connections: Int = 2) async throws -> Double {
        let started = ContinuousClock.now
        let parts = max(1, connections)
        let ranges = (0..<parts).map { part in
            (orders * part / parts + 1, orders * (part + 1) / parts)
        }.filter { $0.0 <= $0.1 }
        for phase in [[statements[0]], Array(statements.dropFirst())] {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for range in ranges {
                    group.addTask {
                        let connection = try await PostgresConnection.connect(connectionString)
                        do {
                            // The planner guesses 1,000 rows per generate_series, so billions per statement, and
                            // would compile each with LLVM for seconds.
                            try await connection.execute("SET jit = off")
                            for statement in phase {
                                try await connection.execute(statement, [range.0, range.1, orders])
                            }
                            await connection.close()
                        } catch {
                            await connection.close()
                            throw error
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let connection = try await PostgresConnection.connect(connectionString)
        do {
            try await connection.execute(
                "SELECT setval(pg_get_serial_sequence('iap.jobs', 'id'), (SELECT max(id) FROM iap.jobs))"
            )
            try await connection.execute("ANALYZE")
            await connection.close()
        } catch {
            await connection.close()
            throw error
        }
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
