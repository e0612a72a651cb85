extension PostgresJobQueue {
    /// Deletes up to `batch` finished jobs (with their attempts) older than `retention`; the ledger and orders
    /// stay. Returns how many went.
    package func purgeFinished(retention: Duration, batch: Int) async throws -> Int {
        try await pool.execute(
            "SELECT iap.purge_finished(make_interval(secs => $1), $2) AS n",
            [retention.seconds, batch]
        ).first?.int("n") ?? 0
    }
}
