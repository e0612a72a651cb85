import FakeAppStore
import Foundation
import Logging
import Prometheus
import ReceiptdCore
import ReceiptdTestKit
import Testing

/// A job is `running` only while a living daemon is working on it: every way a daemon could stop working on a
/// job and leave it `running` under a fresh heartbeat.
@Suite struct StrandedJobTests {
    @Test func aForgedCancelNotificationAbortsNothing() async throws {
        try await Fixture.with { f in
            let job = try await f.enqueue("o1", receipt: Receipts.paying("8001", delay: 1_500))
            // NOTIFY needs no rights: the game server's role, or any other, can send one.
            let app = try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_app"))
            let lines = CapturingLogHandler.Lines()
            try await f.withDaemons(logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [job]) == "running"
                }
                try await app.execute("SELECT pg_notify('iap_job_cancel', $1)", [String(job)])
                try await f.waitUntilSettled()
            }
            await app.close()
            let row = try await f.order("o1")
            #expect(row["outcome"] == "full" && row["state"] == "succeeded" && row["attempts"] == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.attempts WHERE result = 'abandoned'") == "0")
            #expect(lines.all.contains { $0.contains("ignored a cancel notification") })
        }
    }

    @Test func aJobTheDaemonIsNotWorkingOnLetsItsLeaseLapse() async throws {
        try await Fixture.with { f in
            let settings = f.settings { $0.daemon.lease = .seconds(2) }
            try await f.withDaemons(settings: settings) { daemons in
                // A job marked running under this daemon that it does not have in flight (as after a lost answer).
                try await f.connection.execute(
                    """
                    WITH o AS (INSERT INTO iap.orders (order_id, user_id, product_id) VALUES ('o1', 'u1', 'gems'))
                    INSERT INTO iap.jobs (order_id, receipt_data, receipt_sha256, state, attempts, started_at, heartbeat_at, locked_by)
                    VALUES ('o1', $1, 'x', 'running', 1, now(), now(), $2)
                    """,
                    [Receipts.paying("8101"), daemons[0].identity]
                )
                try await f.waitUntilSettled(timeout: .seconds(20))
            }
            let row = try await f.order("o1")
            #expect(row["outcome"] == "full" && row["state"] == "succeeded")
        }
    }

    @Test func anAppleStatusBeyondInt32IsRecorded() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: SyntheticReceipt(status: 3_000_000_000).encoded())
            try await f.withDaemons { _ in try await f.waitUntilSettled(timeout: .seconds(20)) }
            let row = try await f.order("o1")
            #expect(row["outcome"] == "invalid" && row["state"] == "failed")
            #expect(try await f.value("SELECT apple_status FROM iap.attempts") == "3000000000")
        }
    }

    @Test func anAnswerTheDatabaseRefusesIsRescheduledUntilTheJobFails() async throws {
        try await Fixture.with { f in
            // Every verified attempt row is refused, as an out-of-range value would be.
            try await f.script(
                """
                CREATE FUNCTION refuse_verified() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.result = 'verified' THEN
                        RAISE EXCEPTION 'value out of range for the test' USING ERRCODE = '22003';
                    END IF;
                    RETURN NEW;
                END $$;
                CREATE TRIGGER refuse_verified BEFORE INSERT ON iap.attempts FOR EACH ROW EXECUTE FUNCTION refuse_verified();
                """
            )
            try await f.enqueue("o1", receipt: Receipts.paying("8201"))
            let settings = f.settings { $0.daemon.maxAttempts = 3 }
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled(timeout: .seconds(20)) }
            let row = try await f.order("o1")
            #expect(row["state"] == "failed" && row["outcome"] == "failed" && row["attempts"] == "3")
            #expect(row["last_error"]?.contains("recording: could not record the answer") == true)
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")
        }
    }

    @Test func aFinishIsCountedOnceHoweverOftenItsRecordingIsRetried() async throws {
        try await Fixture.with { f in
            // The first two tries at recording fail as a dropped connection would; a sequence survives their rollback.
            try await f.script(
                """
                CREATE SEQUENCE failures;
                CREATE FUNCTION fail_twice() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF nextval('failures') <= 2 THEN
                        RAISE EXCEPTION 'connection trouble for the test' USING ERRCODE = '08006';
                    END IF;
                    RETURN NEW;
                END $$;
                CREATE TRIGGER fail_twice BEFORE INSERT ON iap.attempts FOR EACH ROW EXECUTE FUNCTION fail_twice();
                """
            )
            try await f.enqueue("o1", receipt: SyntheticReceipt(status: 21003).encoded())
            let registry = PrometheusCollectorRegistry()
            let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
            try await f.withDaemons(metrics: metrics) { _ in try await f.waitUntilSettled() }
            #expect(try await f.value("SELECT last_value FROM failures") == "3")
            var bytes: [UInt8] = []
            registry.emit(into: &bytes)
            let finished = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
                .filter { $0.hasPrefix("receiptd_jobs_finished_total{") }
            #expect(
                finished.count == 1 && finished[0].contains("outcome=\"invalid\"") && finished[0].hasSuffix(" 1"),
                "\(finished)"
            )
        }
    }

    @Test func stuckJobsShowsAnAttemptThatOverranWhileItsDaemonHeartbeats() async throws {
        try await Fixture.with { f in
            let job = try await f.enqueue("o1", receipt: Receipts.paying("8301"))
            try await f.connection.execute(
                "INSERT INTO iap.daemons (daemon, attempt_limit_seconds) VALUES ('test-host:1:x', 75)"
            )
            try await f.connection.execute(
                """
                UPDATE iap.jobs SET state = 'running', locked_by = 'test-host:1:x', heartbeat_at = now(),
                    started_at = now() - interval '10 minutes' WHERE id = $1
                """,
                [job]
            )
            let row = try await f.row("SELECT reason, stuck_seconds FROM iap.stuck_jobs WHERE job_id = $1", [job])
            #expect(row["reason"] == "overrun")
            #expect((Int(row["stuck_seconds"] ?? "") ?? 0) >= 600)
            // Within the daemon's limit plus the margin, it is not stuck.
            try await f.connection.execute(
                "UPDATE iap.jobs SET started_at = now() - interval '2 minutes' WHERE id = $1",
                [job]
            )
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
            // A daemon that never said its limit is judged by the default one (90 s, plus the margin).
            try await f.connection.execute("UPDATE iap.daemons SET attempt_limit_seconds = NULL")
            try await f.connection.execute(
                "UPDATE iap.jobs SET started_at = now() - interval '3 minutes' WHERE id = $1",
                [job]
            )
            #expect(try await f.value("SELECT reason FROM iap.stuck_jobs") == "overrun")
        }
    }

    @Test func theDaemonPublishesHowLongItsAttemptsMayTake() async throws {
        try await Fixture.with { f in
            let settings = f.settings {
                $0.apple.requestTimeout = .seconds(7)
                $0.daemon.lease = .seconds(20)
            }
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil { try await f.value("SELECT count(*) FROM iap.daemons") == "1" }
                // The longest attempt is Google's three calls of 7 s (token, lookup, lookup with a renewed token),
                // longer than two verifyReceipt calls with their grace and Server API slots; then up to half the
                // lease recording.
                #expect(try await f.value("SELECT attempt_limit_seconds FROM iap.daemons") == "31")
            }
        }
    }
}

/// Takes PostgreSQL away for longer than half the lease while Apple's answer is in hand. Uses a cluster of its
/// own: the shared one serves other tests.
@Suite struct LongDatabaseLossTests {
    @Test func aJobWhoseAnswerCouldNotBeRecordedReturnsThroughItsLease() async throws {
        let cluster = try await TestEnvironment.privateCluster()
        defer { cluster.stop() }

        try await Fixture.with(database: TestDatabase(cluster: cluster, name: "postgres")) { f in
            let job = try await f.enqueue("o1", receipt: Receipts.paying("8401", delay: 1_000))
            let lines = CapturingLogHandler.Lines()
            let settings = f.settings { $0.daemon.lease = .seconds(4) }
            try await f.withDaemons(settings: settings, logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [job]) == "running"
                }
                try cluster.stopServer(mode: .fast)
                // Apple answers while the database is gone, and recording gives up after half the lease (2 s).
                try await f.waitUntil(timeout: .seconds(15)) {
                    lines.all.contains { $0.contains("could not reschedule the job either") }
                }
                try cluster.resume()
                let fresh = try await f.database.connect()
                try await f.waitUntil(timeout: .seconds(30)) {
                    try await fresh.execute("SELECT state FROM iap.jobs WHERE id = $1", [job]).first?["state"]
                        == "succeeded"
                }
                await fresh.close()
            }
            #expect(lines.all.contains { $0.contains("reclaimed jobs") })
        }
        let check = try await PostgresConnection.connect(cluster.connectionString())
        let row = try await check.execute(
            "SELECT o.outcome::text AS outcome, j.state FROM iap.orders o JOIN iap.jobs j USING (order_id)"
        ).first
        #expect(row?["outcome"] == "full" && row?["state"] == "succeeded")
        await check.close()
    }
}
