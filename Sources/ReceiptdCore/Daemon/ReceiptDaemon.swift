import AsyncHTTPClient
import Logging
import ServiceLifecycle

/// The verification daemon: claims due jobs, verifies them with their store, records outcomes.
///
/// All its work lives in `run()`: a listener, a ticker (poll, heartbeat, lease reclaim) and the
/// dispatcher loop that owns the set of jobs in flight.
package final class ReceiptDaemon: Service {
    private let configuration: Configuration
    private let connectionString: String
    /// All the daemon's SQL, on one pool: its workers' too.
    private let queue: PostgresJobQueue
    private let pool: DatabasePool
    private let runner: JobRunner
    private let logger: Logger
    let metrics: ReceiptdMetrics
    private let readiness = ReadinessSignal()
    /// The longest one attempt may rightly run: its store calls at their deadline, then recording for up to
    /// half the lease. Published with the heartbeat for `iap.stuck_jobs`.
    private let attemptLimit: Duration
    /// How receipt jobs are verified, and so which store API they need.
    let receipts: ReceiptVerifierChoice
    /// Publishes the store APIs whose jobs this daemon's claims skip, for `receiptd status`.
    let pausedAPIs: PausedAPIsPublisher
    /// Whether this daemon runs with `RECEIPTD_WEBHOOK_URL`.
    private let webhooksConfigured: Bool

    /// Creates a daemon; nothing connects until `run()`.
    package init(
        configuration: Configuration,
        connectionString: String,
        verifier: AppleVerifier,
        storeKit: StoreKitConfiguration = StoreKitConfiguration(),
        googlePlay: GooglePlayConfiguration = GooglePlayConfiguration(),
        trust: TrustConfiguration = TrustConfiguration(),
        webhooks: WebhookConfiguration? = nil,
        logger: Logger,
        metrics: ReceiptdMetrics = ReceiptdMetrics(),
        notificationVerifier: NotificationHistoryPoller.Verify? = nil
    ) {
        let identity = DaemonIdentity.make()
        var logger = logger
        logger[metadataKey: LogKey.daemon] = "\(identity)"
        self.configuration = configuration
        self.connectionString = connectionString
        // Every connection the daemon opens besides its LISTEN connection (RECEIPTD_DB_CONNECTIONS).
        let pool = PostgresJobQueue.pool(
            connectionString: connectionString,
            connections: configuration.databaseConnections,
            lease: configuration.lease
        )
        self.pool = pool
        // Half the connections settle; the rest claim, heartbeat, record failures and serve the workers.
        let queue = PostgresJobQueue(
            pool: pool,
            owner: identity,
            planner: configuration.planner,
            unclaimedSince: configuration.unclaimedSince,
            settleConcurrency: max(1, configuration.databaseConnections / 2)
        )
        let signed = SignedTransactionVerifier(roots: storeKit.trustedRoots)
        let serverAPI = storeKit.credentials.map { credentials in
            ServerAPIClient(
                configuration: .init(
                    productionURL: storeKit.serverAPIURL,
                    sandboxURL: storeKit.serverAPISandboxURL,
                    credentials: credentials,
                    bundleID: configuration.expectedBundleID,
                    requestTimeout: verifier.configuration.requestTimeout
                ),
                client: verifier.client,
                pacing: ServerAPIPacing(queue: queue, rate: storeKit.serverAPIRate, metrics: metrics),
                logger: logger
            )
        }
        let receipts: any PurchaseVerifier =
            switch storeKit.receiptVerifier {
            case .verifyReceipt: ReceiptVerifier(apple: verifier)
            case .serverAPI:
                ReceiptHistoryVerifier(
                    serverAPI: serverAPI,
                    signed: signed,
                    signatures: ReceiptSignatureVerifier(roots: storeKit.receiptRoots)
                )
            }
        let google = googlePlay.serviceAccount.flatMap { account in
            googlePlay.packageName.map { package in
                GooglePlayClient(
                    account: account,
                    packageName: package,
                    apiURL: googlePlay.apiURL,
                    client: verifier.client,
                    timeout: verifier.configuration.requestTimeout
                )
            }
        }
        self.runner = JobRunner(
            verifiers: [
                .receipt: receipts,
                .transaction: TransactionVerifier(
                    signed: signed,
                    serverAPI: serverAPI,
                    tokenPolicy: storeKit.transactionIDWithoutToken
                ),
                .googlePurchase: GooglePurchaseVerifier(configuration: googlePlay, client: google, logger: logger),
            ],
            queue: queue,
            configuration: configuration,
            logger: logger,
            metrics: metrics
        )
        let storeNotifications = Doorbell()
        let googleLookups = Doorbell()
        let webhookEvents = Doorbell()
        let companions = Self.makeCompanions(
            queue: queue,
            configuration: configuration,
            storeKit: storeKit,
            googlePlay: googlePlay,
            trust: trust,
            webhooks: webhooks,
            clients: (serverAPI, google),
            doorbells: (storeNotifications, googleLookups, webhookEvents),
            notificationVerifier: notificationVerifier,
            logger: logger,
            metrics: metrics
        )
        self.webhookEvents = webhookEvents
        webhooksConfigured = webhooks != nil
        self.googleLookups = googleLookups
        self.storeNotifications = storeNotifications
        self.companions = companions
        self.metrics = metrics
        self.logger = logger
        self.receipts = storeKit.receiptVerifier
        self.queue = queue
        pausedAPIs = PausedAPIsPublisher(queue: queue, logger: logger)
        attemptLimit = Self.makeAttemptLimit(verifier: verifier, storeKit: storeKit, lease: configuration.lease)
    }

    /// The services that run beside the daemon: with Google Play configured, the acknowledgements owed to Google
    /// (`GoogleFinalizer`) and the voided-purchases poll (`GoogleVoidedPoller`); with the App Store Server API key,
    /// the app account tokens owed (`AppAccountTokenSetter`) and the notification history catch-up
    /// (`NotificationHistoryPoller`); always the store notifications' processing (`NotificationProcessor`), the
    /// lookups Google's notifications need first (`GoogleNotificationLookup`), the refund answers to the stores
    /// reachable (`RefundAnswerer`), the trust levels (`TrustKeeper`) and the webhooks (`WebhookDispatcher`). Run
    /// them in the same service group.
    package let companions: [any Service]
    /// Rung by the listener for each new store notification; the `NotificationProcessor` among `companions` waits on it.
    private let storeNotifications: Doorbell
    /// Rung by the listener for each new store notification too; the `GoogleNotificationLookup` waits on it.
    private let googleLookups: Doorbell
    /// Rung by the listener for each new webhook event; the `WebhookDispatcher` waits on it.
    private let webhookEvents: Doorbell

    /// This daemon's `locked_by` value.
    package var identity: String { queue.owner }

    /// Returns once the database has answered and `LISTEN` is up (or when the calling task is cancelled).
    ///
    /// This is the moment to tell systemd `READY=1`: from now on no enqueued job goes unnoticed.
    package func waitUntilReady() async { await readiness.wait() }

    /// Answers `/readyz`: `SELECT 1` on the daemon's own pool, so readiness checks stay within `RECEIPTD_DB_CONNECTIONS`.
    package func makeDatabaseProbe() -> DatabaseProbe { DatabaseProbe(pool: pool) }

    /// Where the notification endpoint records what it accepts: the daemon's own queue and pool, so the intake
    /// stays within `RECEIPTD_DB_CONNECTIONS` too.
    package func makeNotificationIntake() -> any NotificationIntake { queue }

    /// Runs until graceful shutdown: then stops claiming, gives requests in flight the grace period,
    /// aborts the rest and puts their jobs back to `pending`.
    package func run() async throws {
        let current: Bool
        do {
            current = try await schemaIsCurrent()
        } catch {
            await pool.close()
            throw error
        }
        guard current else {
            await pool.close()
            return
        }
        let (events, sink) = AsyncStream.makeStream(of: DaemonEvent.self)
        let wake = WakeSignal(events: sink)
        let inFlight = InFlightJobs()
        logger.info("receiptd started", metadata: ["concurrency": "\(configuration.concurrency)"])
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                let listener = NotificationListener(
                    connectionString: connectionString,
                    queue: queue,
                    logger: logger,
                    readiness: readiness,
                    metrics: metrics,
                    storeNotifications: storeNotifications,
                    googleLookups: googleLookups,
                    webhookEvents: webhookEvents
                )
                group.addTask { await listener.run(wake: wake, inFlight: inFlight) }
                group.addTask { await self.tick(wake: wake, inFlight: inFlight) }
                var dispatcher = Dispatcher(daemon: self, events: sink, wake: wake, inFlight: inFlight)
                for await event in events {
                    if await dispatcher.handle(event, group: &group) == .stop { break }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            sink.yield(.shutdown)
        }
        do {
            let released = try await queue.releaseUnfinished()
            try await queue.signOff()
            if released > 0 { logger.notice("returned unfinished jobs to pending", metadata: ["jobs": "\(released)"]) }
        } catch {
            logger.error(
                "could not return unfinished jobs; their lease returns them",
                metadata: [LogKey.error: "\(error)"]
            )
        }
        await pool.close()
        logger.info("receiptd stopped")
    }

    /// Waits until the database answers, then checks that it has every migration this binary needs and writes
    /// whether this daemon sends webhooks (`iap.webhook_endpoint.configured`: whether changes write events).
    /// Returns false when shutdown came first; throws `MigrationError.databaseIsBehind` for an old schema.
    /// A database a newer receiptd migrated further is fine: migrations only add.
    private func schemaIsCurrent() async throws -> Bool {
        var backoff = ReconnectBackoff()
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let version = try await queue.schemaVersion()
                guard version >= Migration.latestVersion else {
                    let error = MigrationError.databaseIsBehind(database: version, binary: Migration.latestVersion)
                    logger.critical("cannot start: \(error)")
                    throw error
                }
                // Before the first claim, so that every change this daemon makes writes its webhook event.
                try await queue.setWebhookEndpoint(configured: webhooksConfigured)
                return true
            } catch let error as PostgresError where error.kind == .connection {
                if backoff.failed() {
                    logger.error(
                        "database unreachable at start; retrying with backoff",
                        metadata: [LogKey.error: "\(error)"]
                    )
                }
                await backoff.wait()
            }
        }
        return false
    }

    /// Wakes the dispatcher every poll interval; refreshes heartbeats and reclaims lapsed leases.
    private func tick(wake: WakeSignal, inFlight: InFlightJobs) async {
        var lastLeaseWork = ContinuousClock.now - configuration.lease
        var database = ReconnectBackoff()
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.pollInterval)
            wake.wake()
            guard ContinuousClock.now - lastLeaseWork >= configuration.lease / 4 else { continue }
            do {
                try await queue.heartbeat(jobs: inFlight.ids, attemptLimit: attemptLimit)
                try await purgeOldJobs()
                let depth = try await queue.queueDepth()
                metrics.queueDepth(due: depth.due, oldestDueAgeSeconds: depth.oldestDueAge.seconds)
                let reclaimed = try await queue.reclaimExpired(
                    lease: configuration.lease,
                    maxAttempts: configuration.maxAttempts,
                    inFlight: inFlight.ids
                )
                if reclaimed > 0 {
                    logger.warning("reclaimed jobs of a daemon that stopped", metadata: ["jobs": "\(reclaimed)"])
                }
                lastLeaseWork = .now
                if database.succeeded() {
                    logger.notice("database reachable again")
                    metrics.databaseReconnect()
                }
            } catch {
                if database.failed() {
                    logger.error(
                        "heartbeat and lease work failed (database unreachable?)",
                        metadata: [LogKey.error: "\(error)"]
                    )
                }
            }
        }
    }

    /// One retention pass: a few small batches, so the ticker is never held up for long.
    private func purgeOldJobs() async throws {
        for _ in 0..<4 {
            let deleted = try await queue.purgeFinished(
                retention: configuration.retention,
                batch: configuration.retentionBatch
            )
            if deleted > 0 {
                logger.info(
                    "retention: deleted finished jobs and delivered webhook events",
                    metadata: ["rows": "\(deleted)"]
                )
            }
            if deleted < configuration.retentionBatch { return }
        }
    }

    func claim(limit: Int, filter: ClaimFilter) async throws -> [ClaimedJob] {
        try await queue.claim(limit: limit, filter: filter)
    }
    func process(_ job: ClaimedJob, api: StoreAPI?, abort: AbortSignal) async -> Bool? {
        await runner.run(job, api: api, abort: abort)
    }
    var settings: Configuration { configuration }
    var isListening: Bool { readiness.isFired }
    var log: Logger { logger }
}
