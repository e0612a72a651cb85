extension ChaosRun {
    /// The size and violence of a run.
    package struct Configuration: Sendable {
        /// Daemon processes.
        package var daemons: Int
        /// Orders enqueued (about a tenth become replay pairs, so rows are a little more).
        package var orders: Int
        /// Seconds between SIGKILLs of a random daemon (which is then restarted); 0 kills none.
        package var killInterval: Double
        /// Restart PostgreSQL with `-m immediate` once, mid-run.
        package var restartDatabase: Bool
        /// Seconds PostgreSQL is stopped once, mid-run, after the restart: longer than half the daemons' lease
        /// (3 s), so answers in hand cannot be recorded in time; 0 stops it never.
        package var databaseOutage: Double
        /// Google Play answers 503 to every lookup from the start until App Store orders enqueued after the
        /// database phases have settled (`ChaosStoreOutage`): one store out while the others keep settling.
        package var storeOutage: Bool = true
        /// Send forged `iap_job_cancel` notifications for random running jobs that nobody replaced.
        package var forgeCancels: Bool
        /// The run gives up (and fails) after this many seconds.
        package var timeLimit: Double
        /// Seed of the stand-in's fault draws.
        package var seed: UInt64

        /// Creates a configuration; the defaults are the small run CI does.
        package init(
            daemons: Int = 3,
            orders: Int = 1_000,
            killInterval: Double = 3,
            restartDatabase: Bool = true,
            databaseOutage: Double = 2.5,
            forgeCancels: Bool = true,
            timeLimit: Double = 240,
            seed: UInt64 = 1
        ) {
            self.databaseOutage = databaseOutage
            self.forgeCancels = forgeCancels
            self.daemons = daemons
            self.orders = orders
            self.killInterval = killInterval
            self.restartDatabase = restartDatabase
            self.timeLimit = timeLimit
            self.seed = seed
        }
    }
}
