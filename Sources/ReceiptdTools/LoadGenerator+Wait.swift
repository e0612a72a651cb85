import ReceiptdCore

extension LoadGenerator {
    /// Follows a run until every order it made has an outcome (or `timeout` seconds pass), then checks them all.
    ///
    /// `progress` hears (settled, orders) about twice a second.
    package func waitForOutcomes(
        of summary: LoadSummary,
        timeout: Double = 600,
        progress: @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> LoadVerdict {
        let connection = try await PostgresConnection.connect(databaseURL)
        do {
            let deadline = ContinuousClock.now + .seconds(timeout)
            while ContinuousClock.now < deadline {
                let open =
                    try await connection.execute(
                        "SELECT count(*) FILTER (WHERE outcome IS NULL) AS open FROM iap.orders WHERE order_id LIKE $1",
                        [LoadSummary.ordersPattern(runID: summary.runID)]
                    ).first?.int("open") ?? 0
                progress(summary.orders - open, summary.orders)
                if open == 0 { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            let verdict = try await LoadVerdict.check(runID: summary.runID, connection: connection)
            await connection.close()
            return verdict
        } catch {
            await connection.close()
            throw error
        }
    }
}
