import Foundation
import ReceiptdCore

/// Shortcuts that put jobs and attempts into a given state without a daemon, for the operator tests.
extension Fixture {
    /// Moves a job to `state`, finished (or, for active states, due) `secondsAgo` seconds ago.
    func setJob(_ id: Int64, state: String, secondsAgo: Int = 0, error: String? = nil) async throws {
        try await connection.execute(
            """
            UPDATE iap.jobs
            SET state = $2, last_error = coalesce($4, last_error),
                finished_at = CASE WHEN $2 IN ('pending', 'running') THEN NULL ELSE now() - make_interval(secs => $3) END,
                run_at = CASE WHEN $2 = 'pending' THEN now() - make_interval(secs => $3) ELSE run_at END,
                started_at = CASE WHEN $2 = 'running' THEN now() - make_interval(secs => $3) ELSE started_at END,
                heartbeat_at = CASE WHEN $2 = 'running' THEN now() - make_interval(secs => $3) END,
                locked_by = CASE WHEN $2 = 'running' THEN 'test-host:1:x' END
            WHERE id = $1
            """,
            [id, state, secondsAgo, error]
        )
    }

    /// Sets an order's outcome, `secondsAgo` seconds ago.
    func setOutcome(_ order: String, _ outcome: String, secondsAgo: Int = 0) async throws {
        try await connection.execute(
            "UPDATE iap.orders SET outcome = $2::iap.outcome, outcome_at = now() - make_interval(secs => $3) WHERE order_id = $1",
            [order, outcome, secondsAgo]
        )
    }

    /// Adds an `iap.attempts` row for `job`, finished `secondsAgo` seconds ago.
    func addAttempt(
        job: Int64,
        number: Int,
        result: String,
        errorClass: String? = nil,
        appleStatus: Int? = nil,
        httpStatus: Int? = nil,
        error: String? = nil,
        secondsAgo: Int = 0
    ) async throws {
        try await connection.execute(
            """
            INSERT INTO iap.attempts (job_id, order_id, attempt, daemon, started_at, finished_at, duration_ms, environment,
                                      apple_status, http_status, result, error_class, error)
            SELECT id, order_id, $2, 'test-host:1:x', now() - make_interval(secs => $3 + 1), now() - make_interval(secs => $3),
                   1000, 'Production', $4, $5, $6, $7, $8
            FROM iap.jobs WHERE id = $1
            """,
            [job, number, secondsAgo, appleStatus, httpStatus, result, errorClass, error]
        )
    }

    /// A connection string for `user` on this test's database (the throwaway cluster trusts 127.0.0.1).
    func connectionString(asUser user: String) -> String {
        "host=127.0.0.1 port=\(database.cluster.port) user=\(user) dbname=\(database.name)"
    }

    /// Creates a login role that is a member of `group` (or of none), named after this database since roles are
    /// cluster-wide, and returns a connection string for it.
    func loginRole(in group: String?) async throws -> String {
        let name = "\(database.name)_\(group?.replacingOccurrences(of: "receiptd_", with: "") ?? "nobody")"
        // Identifiers cannot be parameters; both names are ours, made of [a-z0-9_].
        try await connection.execute("CREATE ROLE \(name) LOGIN" + (group.map { " IN ROLE \($0)" } ?? ""))
        return connectionString(asUser: name)
    }
}

/// A large game's database, for the plan and purge tests: realistic row counts, written in one statement each.
extension Fixture {
    /// Seeds, as the owner, `rows` paid orders for `players` players (user ids `u0`…), each paid by one job that
    /// finished 40 days ago (job `n` pays order `o<n>`) and named by one ledger row (`t<n>`): kinds, stores, refunds
    /// and grants mixed, one in fifty not yet granted (its order `verified`); `players` App Store subscriptions
    /// (`apple:<n>` of user `u<n>`, three in four active); a provisional grant settled long ago for one order in
    /// twenty; and both stores' trust for every player. Then ANALYZE, so the planner sees the sizes.
    func seedLargeLedger(rows: Int = 100_000, players: Int = 20_000) async throws {
        try await connection.execute(
            """
            INSERT INTO iap.orders (order_id, user_id, product_id, quantity, created_at, outcome, delivered_quantity,
                                    outcome_at, status)
            SELECT 'o' || g, 'u' || (g % $2::int), 'p' || ((g + g / $2::int) % 10), 1, now() - interval '41 days', 'full', 1,
                   now() - interval '40 days', (CASE WHEN g % 50 = 0 THEN 'verified' ELSE 'finished' END)::iap.order_status
            FROM generate_series(1, $1::int) g
            """,
            [rows, players]
        )
        try await connection.execute(
            """
            INSERT INTO iap.jobs (id, order_id, receipt_data, receipt_sha256, state, attempts, created_at, started_at,
                                  finished_at, submitted_by)
            SELECT g, 'o' || g, 'QUJD', md5(g::text), 'succeeded', 1, now() - interval '41 days',
                   now() - interval '40 days', now() - interval '40 days' + g * interval '1 ms', 'u' || (g % $2::int)
            FROM generate_series(1, $1::int) g
            """,
            [rows, players]
        )
        try await connection.execute("SELECT setval(pg_get_serial_sequence('iap.jobs', 'id'), $1)", [rows])
        try await connection.execute(
            """
            INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, job_id, delivered_at,
                                        granted_at, store, product_kind, revoked_at, revocation_reason)
            SELECT 't' || g, 'o' || g, 'u' || (g % $2::int), 'p' || ((g + g / $2::int) % 10), 1, g, now() - interval '40 days',
                   CASE WHEN g % 50 <> 0 THEN now() - interval '40 days' END,
                   CASE WHEN g % 3 = 0 THEN 'google' ELSE 'apple' END,
                   CASE WHEN (g + g / $2::int) % 10 < 6 THEN 'consumable' WHEN (g + g / $2::int) % 10 < 8 THEN 'non_consumable'
                        ELSE 'auto_renewable' END,
                   CASE WHEN g % 100 = 1 THEN now() - interval '39 days' END,
                   CASE WHEN g % 100 = 1 THEN 'refund' END
            FROM generate_series(1, $1::int) g
            """,
            [rows, players]
        )
        try await connection.execute(
            """
            INSERT INTO iap.subscriptions (subscription_id, store, user_id, product_id, state, entitled_until, expires_at)
            SELECT 'apple:' || g, 'apple', 'u' || g, 'vip', CASE WHEN g % 4 = 0 THEN 'expired' ELSE 'active' END,
                   CASE WHEN g % 4 <> 0 THEN now() + interval '10 days' END, now() + interval '10 days'
            FROM generate_series(0, $1::int - 1) g
            """,
            [players]
        )
        try await connection.execute(
            """
            INSERT INTO iap.provisional_grants (order_id, user_id, store, product_id, quantity, job_id, cause, state,
                                                resolved_at, granted_at)
            SELECT 'o' || g, 'u' || (g % $2::int), 'apple', 'p' || ((g + g / $2::int) % 10), 1, g, 'store_failing', 'confirmed',
                   now() - interval '40 days', now() - interval '40 days'
            FROM generate_series(20, $1::int, 20) g
            """,
            [rows, players]
        )
        try await connection.execute(
            """
            INSERT INTO iap.user_trust (user_id, store, trusted, streak, reason)
            SELECT 'u' || g, s.store, true, 3, 'restored'
            FROM generate_series(0, $1::int - 1) g, (VALUES ('apple'), ('google')) s (store)
            """,
            [players]
        )
        try await connection.execute("ANALYZE")
    }
}
