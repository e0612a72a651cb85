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
