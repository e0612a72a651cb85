extension ChaosRun {
    /// The size and violence of a run.
    public struct Configuration: Sendable {
        /// Daemon processes.
        public var daemons: Int
        /// Orders enqueued (about a tenth become replay pairs, so rows are a little more).
        public var orders: Int
        /// Seconds between SIGKILLs of a random daemon (which is then restarted); 0 kills none.
        public var killInterval: Double
        /// Restart PostgreSQL with `-m immediate` once, mid-run.
        public var restartDatabase: Bool
        /// The run gives up (and fails) after this many seconds.
        public var timeLimit: Double
        /// Seed of the stand-in's fault draws.
        public var seed: UInt64

        /// Creates a configuration; the defaults are the small run CI does.
        public init(daemons: Int = 3, orders: Int = 1_000, killInterval: Double = 3, restartDatabase: Bool = true,
                    timeLimit: Double = 240, seed: UInt64 = 1) {
            self.daemons = daemons
            self.orders = orders
            self.killInterval = killInterval
            self.restartDatabase = restartDatabase
            self.timeLimit = timeLimit
            self.seed = seed
        }
    }
}
