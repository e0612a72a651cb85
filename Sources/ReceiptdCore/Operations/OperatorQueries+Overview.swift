extension OperatorQueries {
    /// The overview's charts, from one read-only snapshot: orders settled per 10 minutes by outcome (read through
    /// the index on `outcome_at`) and retries by error class and store (through the index on `attempts.finished_at`),
    /// over the last 24 hours. The figures beside them are `status()`.
    package func overviewSeries() async throws -> OverviewSeries {
        try await connection.withSession { session in
            try session.transaction { session in
                try session.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                let window = try session.execute(
                    """
                    SELECT \(Self.utc("to_timestamp(floor(extract(epoch FROM now() - interval '24 hours') / 600) * 600)")) AS since,
                           \(Self.utc("now()")) AS now
                    """
                )
                let settled = try session.execute(
                    """
                    SELECT \(Self.utc("to_timestamp(floor(extract(epoch FROM outcome_at) / 600) * 600)")) AS bucket,
                           outcome::text AS outcome, count(*) AS orders
                    FROM iap.orders
                    WHERE outcome_at IS NOT NULL AND outcome IS NOT NULL
                      AND outcome_at >= to_timestamp(floor(extract(epoch FROM now() - interval '24 hours') / 600) * 600)
                    GROUP BY 1, 2 ORDER BY 1, 2
                    """
                )
                let retries = try session.execute(
                    """
                    SELECT coalesce(a.error_class, 'unclassified') AS error_class,
                           CASE WHEN j.kind = '\(JobKind.googlePurchase.rawValue)' THEN 'google' ELSE 'apple' END AS store,
                           count(*) AS retries, count(DISTINCT a.job_id) AS jobs
                    FROM iap.attempts a LEFT JOIN iap.jobs j ON j.id = a.job_id
                    WHERE a.result = 'retry' AND a.finished_at > now() - interval '24 hours'
                    GROUP BY 1, 2 ORDER BY retries DESC, 1, 2
                    """
                )
                return OverviewSeries(
                    since: try window.first?.string("since") ?? "",
                    now: try window.first?.string("now") ?? "",
                    settled: try settled.namedRows.map { row in
                        OverviewSeries.Settled(
                            bucket: try row.string("bucket"),
                            outcome: try row.string("outcome"),
                            orders: try row.int("orders")
                        )
                    },
                    retries: try retries.namedRows.map { row in
                        OverviewSeries.Retries(
                            errorClass: try row.string("error_class"),
                            store: try row.string("store"),
                            retries: try row.int("retries"),
                            jobs: try row.int("jobs")
                        )
                    }
                )
            }
        }
    }

    /// The rows of `iap.stuck_jobs`, longest stuck first, at most `limit` (the console's stuck page).
    package func stuckJobs(limit: Int) async throws -> [QueueStatus.StuckJob] {
        try await connection.execute("SELECT * FROM iap.stuck_jobs LIMIT $1", [limit]).namedRows.map(
            QueueStatus.StuckJob.init(row:)
        )
    }
}
