import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ReceiptdTestKit

/// Several daemon processes work through thousands of orders while the stand-in injects faults,
/// daemons are killed with SIGKILL and restarted, PostgreSQL is restarted with `-m immediate` and later
/// stopped for longer than half the lease, forged cancel notifications name running jobs, and a game
/// transaction holds an order's rows locked across more than a lease (`ChaosGameTransaction`). Provisional grants
/// are on: trusted players' orders (Google's players are trusted too) waiting a second on a failing store are
/// granted, and the game side (`ChaosProvisionalGame`) grants them and takes refuted ones back, while an operator
/// cancels (and retries) the job of a granted order and the game closes another.
/// Every daemon sends webhooks to a stand-in receiver in this process (`ChaosWebhooks`). App Store and Google Play
/// subscriptions renew throughout without a notification, each renewal found by the daemons' re-read
/// (`ChaosSubscriptions`).
/// Then `ChaosReport` checks that nothing was lost or delivered twice, `ChaosProvisionalGame` that every
/// provisional grant ended confirmed, refuted or cancelled (none stays unconfirmed) and that no unit was owed twice, and `ChaosWebhooks` that every
/// event was delivered, verified, and first arrived in its order's write order.
package struct ChaosRun {
    let configuration: Configuration
    let executable: String
    let say: @Sendable (String) -> Void

    /// Creates a run that starts daemons as `executable run`.
    package init(configuration: Configuration, executable: String, say: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.executable = executable
        self.say = say
    }

    /// Runs it; the report says whether every check held.
    package func run() async throws -> ChaosReport {
        // synchronous_commit stays on: an immediate restart must lose no committed transaction.
        let postgres = try TemporaryPostgres.start(
            configuration: .init(maxConnections: 300, settings: ["synchronous_commit": "on"])
        )
        defer { postgres.stop() }
        let key = ServerAPITestKey.generate()
        let standIn = AppStoreStandIn(
            configuration: .init(
                latency: .uniform(minMilliseconds: 0, maxMilliseconds: 30),
                unavailableRate: 0.05,
                status21005Rate: 0.05,
                resetRate: 0.02,
                seed: configuration.seed,
                serverAPIKey: key.publicKey
            ),
            logger: Logger(label: "fake-appstore", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        _ = try await standIn.start()
        let googlePlay = GooglePlayStandIn(
            logger: Logger(label: "fake-googleplay", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        _ = try await googlePlay.start()
        let files = try StoreKitFiles(standIn: standIn, key: key)
        let googleFiles = try GooglePlayFiles(standIn: googlePlay)
        defer {
            files.remove()
            googleFiles.remove()
        }
        let webhooks = try await ChaosWebhooks.start()
        let environment = files.environment.merging(googleFiles.environment) { $1 }
            .merging(webhooks.environment) { $1 }
        do {
            let report = try await run(
                postgres: postgres,
                standIn: standIn,
                googlePlay: googlePlay,
                webhooks: webhooks,
                environment: environment
            )
            try await standIn.shutdown()
            try await googlePlay.shutdown()
            await webhooks.stop()
            return report
        } catch {
            try? await standIn.shutdown()
            try? await googlePlay.shutdown()
            await webhooks.stop()
            throw error
        }
    }

    private func run(
        postgres: TemporaryPostgres,
        standIn: AppStoreStandIn,
        googlePlay: GooglePlayStandIn,
        webhooks: ChaosWebhooks,
        environment storeEnvironment: [String: String]
    ) async throws -> ChaosReport {
        let database = postgres.connectionString()
        var connection = try await PostgresConnection.connect(database)
        try await Migrator.migrate(connection)
        // Each daemon writes this at its start too; written first here, so that no settle before it goes unreported.
        try await connection.execute("SELECT iap.set_webhook_endpoint(true)")
        let orders = ChaosOrders(
            count: configuration.orders,
            outageOrders: configuration.storeOutage ? 20 : 0,
            standIn: standIn
        )
        for call in orders.initial { try await enqueue(call, on: connection) }
        let subscriptions = try await ChaosSubscriptions.start(standIn: standIn, google: googlePlay, on: connection)
        let renewals = Task { await subscriptions.renewAsTheStoresDo() }
        defer { renewals.cancel() }
        say(
            "enqueued \(orders.initial.count) orders and \(ChaosSubscriptions.count + ChaosSubscriptions.googleCount) "
                + "subscriptions; "
                + "starting \(configuration.daemons) daemons"
        )

        let logDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-chaos-\(getpid())")
            .path
        try FileManager.default.createDirectory(atPath: logDirectory, withIntermediateDirectories: true)
        let environment = daemonEnvironment(database: database, standIn: standIn).merging(storeEnvironment) { $1 }
        var storeOutage = ChaosStoreOutage(google: googlePlay, batch: orders.outageBatch, say: say)
        var provisional = ChaosProvisionalGame()
        var fleet = try DaemonFleet(
            size: configuration.daemons,
            executable: executable,
            environment: environment,
            logDirectory: logDirectory
        )

        let started = ContinuousClock.now
        var lastKill = started
        var replaced = false
        var restarted = !configuration.restartDatabase
        var outageDone = configuration.databaseOutage <= 0
        var forged = 0
        var open = Int.max
        var game: Task<ChaosGameTransaction.Held, Never>?
        var gameEnds = started
        while ContinuousClock.now - started < .seconds(configuration.timeLimit) {
            try await Task.sleep(for: .milliseconds(250))
            try fleet.restartCrashed()
            if !replaced, ContinuousClock.now - started > .milliseconds(150) {
                for call in orders.replacements { try await enqueue(call, on: connection) }
                replaced = true
                let transaction = ChaosGameTransaction(database: database)
                game = Task { await transaction.run() }
                gameEnds = .now + .seconds(transaction.seconds + 2)
            }
            if configuration.killInterval > 0, !storeOutage.holdsKills,
                ContinuousClock.now - lastKill >= .seconds(configuration.killInterval)
            {
                try fleet.killOneAndRestart()
                lastKill = .now
            }
            do {
                open =
                    try await connection.execute(
                        "SELECT count(*) AS n FROM iap.jobs WHERE state IN ('pending', 'running')"
                    ).first?.int("n") ?? 0
                if configuration.forgeCancels { forged += try await forgeCancels(on: connection) }
                try await storeOutage.step(ready: restarted && outageDone, connection: connection) {
                    try await enqueue($0, on: connection)
                }
                try await provisional.step(on: connection)
            } catch {
                say("the run's own database work failed (\(error)); reconnecting")
                await connection.close()
                connection = try await PostgresConnection.connect(database)
                continue
            }
            // Not while the game transaction holds its locks: a restart would end it early.
            if !restarted, ContinuousClock.now > gameEnds, open < orders.initial.count * 2 / 3 {
                say("restarting PostgreSQL with -m immediate (\(open) jobs open)")
                try postgres.restart(mode: .immediate)
                restarted = true
                await connection.close()
                connection = try await PostgresConnection.connect(database)
                continue
            }
            if restarted, !outageDone, open < orders.initial.count / 3 {
                say("stopping PostgreSQL for \(configuration.databaseOutage) s (\(open) jobs open)")
                try postgres.stopServer(mode: .fast)
                try await Task.sleep(for: .seconds(configuration.databaseOutage))
                try postgres.resume()
                outageDone = true
                await connection.close()
                connection = try await PostgresConnection.connect(database)
                continue
            }
            let owed =
                (try? await connection.execute(
                    "SELECT count(*) AS n FROM iap.google_finalizations WHERE done_at IS NULL"
                ).first?.int("n")) ?? 1
            // Events a killed daemon had claimed wait for its webhook lease to lapse, then are sent again.
            let unsent = (try? await ChaosWebhooks.undelivered(on: connection)) ?? 1
            let renewed = (try? await subscriptions.isOver(on: connection)) ?? false
            let settled =
                open == 0 && owed == 0 && replaced && restarted && outageDone && storeOutage.isOver && renewed
            if settled && unsent == 0 { break }
            if settled, let lapsed = try? await ChaosWebhooks.lapseLeases(of: fleet.killedPIDs, on: connection),
                lapsed > 0
            {
                say("\(lapsed) webhook events claimed by killed daemons: their leases lapse now")
            }
        }
        let elapsed = ContinuousClock.now - started
        say("stopping daemons after \(elapsed)")
        let exitCodes = await fleet.terminateAll()
        var report = try await ChaosReport.check(
            orders: orders,
            connection: connection,
            elapsed: elapsed,
            kills: fleet.kills,
            crashes: fleet.crashes,
            gracefulExitCodes: exitCodes,
            apple: standIn.recordedRequests().count,
            serverAPI: standIn.recordedServerAPIRequests().count,
            googleFinalizations: googlePlay.recordedFinalizations(),
            forgedCancels: forged
        )
        if let held = await game?.value {
            report.gameTransactionSeconds = held.seconds
            report.violations += held.violations
            say(
                "a game transaction held order \(held.orderID ?? "none") for \(String(format: "%.1f", held.seconds)) s; "
                    + "\(held.othersFinished) of \(held.othersOpen) other open jobs finished meanwhile"
            )
        }
        report.settledDuringStoreOutage = storeOutage.settled
        let grants = try await provisional.check(on: connection)
        (report.provisionalGranted, report.provisionalConfirmed, report.provisionalRefuted) =
            (grants.granted, grants.confirmed, grants.refuted)
        report.provisionalCancelled = grants.cancelled
        report.violations += grants.violations
        report.violations += storeOutage.violations
        let sold = try await subscriptions.check(on: connection)
        report.subscriptionPeriods = sold.periods
        report.violations += sold.violations
        let told = try await webhooks.check(on: connection)
        (report.webhookEvents, report.webhookRedeliveries) = (told.events, told.redeliveries)
        report.violations += told.violations
        if !storeOutage.isOver { report.violations.append("Google Play was still out when the run ended") }
        await connection.close()
        if report.violations.isEmpty {
            try? FileManager.default.removeItem(atPath: logDirectory)
        } else {
            say("daemon logs kept in \(logDirectory)")
        }
        return report
    }

    /// Names up to three running jobs on the cancel channel though nobody replaced them, as any role can.
    private func forgeCancels(on connection: PostgresConnection) async throws -> Int {
        try await connection.execute(
            """
            SELECT pg_notify('iap_job_cancel', id::text)
            FROM (SELECT id FROM iap.jobs WHERE state = 'running' ORDER BY random() LIMIT 3) running
            """
        ).rows.count
    }

    private func enqueue(_ call: ChaosOrders.Enqueue, on connection: PostgresConnection) async throws {
        let function =
            switch call.kind {
            case .receipt: "iap.enqueue_receipt"
            case .transaction: "iap.enqueue_transaction"
            case .googlePurchase: "iap.enqueue_google_purchase"
            }
        if call.kind == .transaction {
            try await connection.execute(
                "SELECT \(function)($1, $2, $3, $4, $5, $6::uuid)",
                [
                    call.orderID, call.userID, ChaosOrders.product, call.receipt, call.quantity,
                    call.appAccountToken?.uuidString,
                ]
            )
            return
        }
        try await connection.execute(
            "SELECT \(function)($1, $2, $3, $4, $5)",
            [call.orderID, call.userID, ChaosOrders.product, call.receipt, call.quantity]
        )
    }

    private func daemonEnvironment(database: String, standIn: AppStoreStandIn) -> [String: String] {
        DaemonProcess.environment(
            database: database,
            standIn: standIn,
            overrides: [
                "RECEIPTD_BACKOFF_BASE": "0.05", "RECEIPTD_BACKOFF_MAX": "0.5", "RECEIPTD_MAX_ATTEMPTS": "1000",
                "RECEIPTD_POLL_INTERVAL": "0.2", "RECEIPTD_APPLE_TIMEOUT": "2", "RECEIPTD_LEASE": "3",
                // Provisional grants during the outages: trusted players' orders (Google's too, so that its
                // outage grants them) waiting a second on a failing store are granted, then confirmed or refuted.
                "RECEIPTD_PROVISIONAL": "on", "RECEIPTD_PROVISIONAL_AFTER": "1",
                "RECEIPTD_TRUST_INITIAL_GOOGLE": "trusted",
            ]
        )
    }
}
