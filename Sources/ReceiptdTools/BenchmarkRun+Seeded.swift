import FakeAppStore
import Logging
import ReceiptdCore
import ReceiptdTestKit

extension BenchmarkRun {
    /// The receipt, signed-transaction and Google purchase scenarios of this build on `database` of `postgres` (the
    /// seeded database at a successful game's size), as on empty ones: the first daemon count, the stand-ins at
    /// 0 ms, `runs` runs each, every run adding its orders to the database. Marked with the seeded subscriptions.
    func seededScenarios(postgres: TemporaryPostgres, database: String) async throws -> [BenchmarkScenario] {
        var report = BenchmarkReport(command: "", orders: configuration.orders)
        let builds = [(name: "this", executable: executable)]
        let daemons = configuration.daemonCounts.first ?? 1
        let standIn = AppStoreStandIn(
            configuration: .init(latency: .fixed(milliseconds: 0)),
            logger: Logger(label: "fake-appstore", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        _ = try await standIn.start()
        do {
            for kind in [JobKind.receipt, .transaction] {
                let files = kind == .transaction ? try StoreKitFiles(standIn: standIn, key: .generate()) : nil
                defer { files?.remove() }
                try await runAlternating(
                    kind,
                    builds: builds,
                    postgres: postgres,
                    standIn: standIn,
                    daemons: daemons,
                    latency: 0,
                    storeEnvironment: files?.environment ?? [:],
                    existingDatabase: database,
                    report: &report
                )
            }
            try await googlePlayScenarios(
                builds: builds,
                postgres: postgres,
                standIn: standIn,
                daemons: daemons,
                existingDatabase: database,
                report: &report
            )
            try await standIn.shutdown()
        } catch {
            try? await standIn.shutdown()
            throw error
        }
        return report.scenarios.map { scenario in
            var scenario = scenario
            scenario.seededSubscriptions = configuration.subscriptions
            return scenario
        }
    }
}
