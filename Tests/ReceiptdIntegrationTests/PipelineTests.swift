import Testing

@testable import ReceiptdCore

@Suite struct PipelineTests {
    @Test func pipelineReturnsEachStatementsResultInOrder() async throws {
        try await Fixture.with { f in
            let results = try await f.connection.withSession { session in
                try session.pipeline([
                    SQLStatement("SELECT $1::int + 1 AS n", [41]),
                    SQLStatement("SELECT 'a' AS x UNION ALL SELECT $1", ["b"]),
                    SQLStatement("SELECT $1::text IS NULL AS empty", [String?.none]),
                ])
            }
            #expect(results.count == 3)
            #expect(results[0].first?["n"] == "42")
            #expect(results[1].rows.map { $0[0] } == ["a", "b"])
            #expect(results[2].first?["empty"] == "t")
        }
    }

    @Test func aFailureStopsThePipelineAndTheConnectionStaysUsable() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("CREATE TEMP TABLE marks (n int)")
            let error = await #expect(throws: PostgresError.self) {
                try await f.connection.withSession { session in
                    try session.pipeline([
                        SQLStatement("BEGIN"),
                        SQLStatement("INSERT INTO marks VALUES ($1)", [1]),
                        SQLStatement("SELECT 1 / $1::int", [0]),
                        SQLStatement("INSERT INTO marks VALUES ($1)", [2]),
                        SQLStatement("COMMIT"),
                    ])
                }
            }
            #expect(error?.sqlState == "22012")
            #expect(error?.kind == .query)
            // The transaction is aborted, not committed: the caller rolls back, and nothing was written.
            try await f.connection.execute("ROLLBACK")
            #expect(try await f.connection.execute("SELECT count(*) AS n FROM marks").first?["n"] == "0")
            let again = try await f.connection.withSession {
                try $0.pipeline([SQLStatement("SELECT $1::int AS n", [7])])
            }
            #expect(again.first?.first?["n"] == "7")
        }
    }

    @Test func statementsArePreparedOncePerConnectionAndSurviveARollback() async throws {
        try await Fixture.with { f in
            let sql = "SELECT $1::int * 2 AS doubled"
            for value in 1...3 { try await f.connection.execute(sql, [value]) }
            try await f.connection.execute("BEGIN")
            try await f.connection.execute(sql, [4])
            try await f.connection.execute("ROLLBACK")
            #expect(try await f.connection.execute(sql, [5]).first?["doubled"] == "10")
            let prepared = try await f.connection.execute(
                "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = $1",
                [sql]
            ).first?["n"]
            #expect(prepared == "1")
        }
    }

    /// The claim's generic plan (the one a prepared statement settles on) must not scan or sort the jobs
    /// table: it once guessed a tenth of the queue for `LIMIT $1` and hash-joined the whole table.
    @Test func claimsGenericPlanReadsOnlyTheJobsItTakes() async throws {
        try await Fixture.with { f in
            try await f.connection.execute(
                """
                SELECT count(iap.enqueue_receipt('q' || g, 'qu' || g, 'gems', 'e30=', 1)) FROM generate_series(1, 3000) g
                """
            )
            try await f.connection.execute("ANALYZE iap.jobs")
            try await f.connection.execute("SET plan_cache_mode = force_generic_plan")
            // A fixed test statement: the SQL under test is the daemon's own text, nothing from outside.
            try await f.connection.withSession {
                try $0.executeScript("PREPARE claim_under_test AS " + PostgresJobQueue.claimSQL)
            }
            let plan = try await f.connection.execute(
                "EXPLAIN EXECUTE claim_under_test(5, 'test', '{receipt,transaction,google_purchase}', 'all')"
            ).rows
                .compactMap { $0[0] }.joined(separator: "\n")
            #expect(plan.contains("jobs_pending_due"))
            #expect(!plan.contains("Seq Scan on jobs"))
            #expect(!plan.contains("Sort"))
            let queue = PostgresJobQueue(
                pool: DatabasePool(connectionString: f.database.connectionString, maximumConnections: 1),
                owner: "test:1:plan",
                planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: "x")
            )
            #expect(try await queue.claim(limit: 5).map(\.order.orderID) == ["q1", "q2", "q3", "q4", "q5"])
        }
    }
}
