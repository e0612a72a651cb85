import Foundation

/// The PostgreSQL `JobQueue`: every statement of the daemon and its workers, on one pool. Every statement takes
/// parameters; each state change is one statement or one transaction. One extension file per concern.
package struct PostgresJobQueue: JobQueue {
    let pool: DatabasePool
    /// This daemon's `locked_by` value.
    package let owner: String
    /// What verified answers deliver.
    let planner: DeliveryPlanner
    /// Purchases before this are never recorded as unclaimed; `nil`: since the database was first migrated.
    let unclaimedSince: Date?
    private let batcher: SettleBatcher?

    /// Creates a queue for the daemon identified by `owner`. With `settleConcurrency`, verified answers that
    /// arrive together are settled together, on at most that many connections at once.
    package init(
        pool: DatabasePool,
        owner: String,
        planner: DeliveryPlanner,
        unclaimedSince: Date? = nil,
        settleConcurrency: Int? = nil
    ) {
        let unbatched = PostgresJobQueue(
            pool: pool,
            owner: owner,
            planner: planner,
            unclaimedSince: unclaimedSince,
            batcher: nil
        )
        self.init(
            pool: pool,
            owner: owner,
            planner: planner,
            unclaimedSince: unclaimedSince,
            batcher: settleConcurrency.map { concurrency in
                SettleBatcher(maximumBatch: Self.settleBatchSize, maximumConcurrent: concurrency) {
                    await unbatched.recordEach($0)
                }
            }
        )
    }

    private init(
        pool: DatabasePool,
        owner: String,
        planner: DeliveryPlanner,
        unclaimedSince: Date?,
        batcher: SettleBatcher?
    ) {
        self.pool = pool
        self.owner = owner
        self.planner = planner
        self.unclaimedSince = unclaimedSince
        self.batcher = batcher
    }

    /// The daemon's pool: at most `connections` connections, each of which sets the session settings below.
    ///
    /// Every statement of the daemon has an index to follow. Statistics lag behind a fresh or fast-growing
    /// table, and a generic plan cached while the ledger was small scanned all of it on every settle later.
    /// No statement waits long for a row a game server's open transaction holds: it fails as transient
    /// (SQLSTATE 55P03) and is tried again later, so heartbeats, claims, reclaims and settles keep going.
    /// JIT is off: with sequential scans costed out of reach, a statement on a small table without a usable index
    /// looked expensive enough to be compiled with LLVM, half a second each, for work that takes a millisecond.
    package static func pool(connectionString: String, connections: Int, lease: Duration) -> DatabasePool {
        let lockTimeout = lockTimeout(lease: lease).components
        let milliseconds = lockTimeout.seconds * 1000 + lockTimeout.attoseconds / 1_000_000_000_000_000
        return DatabasePool(
            connectionString: connectionString,
            maximumConnections: connections,
            sessionSettings: planSettings + [("lock_timeout", "\(milliseconds)ms")]
        )
    }

    /// The planner settings of every connection of the daemon's pool (see `pool`).
    package static let planSettings: [(name: String, value: String)] = [("enable_seqscan", "off"), ("jit", "off")]

    /// How long any statement of the daemon waits for a row lock before it fails with SQLSTATE 55P03
    /// (`lock_timeout`, set on every connection of its pool): a twentieth of the lease, between half a second
    /// and a second. Daemons hold their locks for milliseconds; only a transaction left open waits this long.
    package static func lockTimeout(lease: Duration) -> Duration {
        min(max(lease / 20, .milliseconds(500)), .seconds(1))
    }

    /// Most verified answers one settle statement takes.
    static let settleBatchSize = 64

    /// Settles one verified answer, together with the others that arrive meanwhile when batching is on, unless
    /// `alone` (an answer whose rows another transaction held locked at the last try: it would hold up a batch).
    package func recordVerified(_ answer: VerifiedAnswer, alone: Bool = false) async throws -> Settlement {
        if let batcher, !alone { return try await batcher.settle(answer) }
        return try await recordVerified([answer])[0]
    }
}
