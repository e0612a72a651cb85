import Foundation
import Logging
import ServiceLifecycle

/// Reads subscriptions again, so that no news is lost: works off the subscriptions whose `read_due_at` passed (news
/// asked for a re-read, or an entitlement ended without news). An App Store subscription is read with Get All
/// Subscription Statuses in its environment through the App Store Server API's shared pacing; a Google Play one with
/// `purchases.subscriptionsv2.get` and its latest token (`SubscriptionReader+GooglePlay`). Each answer's signed
/// transactions and renewal infos are verified, mapped onto the model (`AppleSubscriptionReading`) and written with
/// the periods the ledger lacks, each its own order; a failure is retried with backoff, and a refusal for good (a 404)
/// every `retryInterval`, shown failing, until the store answers. A row is claimed for the
/// daemon's lease, so a daemon that dies mid-read leaves it to the next. Every daemon runs one; without Server API
/// credentials (and Google Play's service account) it reads nothing and only samples the subscriptions' gauges.
package final class SubscriptionReader: Service {
    let queue: any SubscriptionReadQueue
    let client: ServerAPIClient?
    let google: GooglePlayClient?
    let jws: AppleJWSVerifier
    let bundleID: String
    let backoff: Backoff
    /// How long after a refusal for good the subscription is read again (`RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL`).
    let retryInterval: Duration
    private let pollInterval: Duration
    private let lease: Duration
    let logger: Logger
    let metrics: ReceiptdMetrics

    init(
        queue: any SubscriptionReadQueue,
        client: ServerAPIClient?,
        google: GooglePlayClient? = nil,
        jws: AppleJWSVerifier,
        bundleID: String,
        backoff: Backoff,
        retryInterval: Duration,
        pollInterval: Duration,
        lease: Duration,
        logger: Logger,
        metrics: ReceiptdMetrics
    ) {
        self.queue = queue
        self.client = client
        self.google = google
        self.jws = jws
        self.bundleID = bundleID
        self.backoff = backoff
        self.retryInterval = retryInterval
        self.pollInterval = pollInterval
        self.lease = lease
        self.logger = logger
        self.metrics = metrics
    }

    /// How often the subscriptions' gauges are refreshed, at most.
    static let figuresInterval: Duration = .seconds(15)

    /// When the gauges are refreshed again after a count that took `counting`: after `figuresInterval`, or later
    /// when the count is slow, so that counting takes at most a 600th of a daemon's time. The count reads every
    /// subscription (150 ms for 1,000,000): every 15 s, it was most of what an idle daemon cost (issue #48).
    static func figuresDelay(counting: Duration) -> Duration {
        max(figuresInterval, counting * 600)
    }

    /// Reads in flight at once in one daemon, at most. One claim at a time hands them out; each read waits on its
    /// store and records on a pooled connection of its own. Read one after the other, a storm's re-reads ran at one
    /// store round trip and one transaction each, whatever the pool could do beside them (issue #48).
    static let concurrentReads = 8

    /// Reads due subscriptions until graceful shutdown; the reads in flight finish first.
    package func run() async throws {
        var nextFigures = ContinuousClock.now
        var cursor = SubscriptionReadCursor()
        await withTaskGroup(of: Void.self) { reads in
            var inFlight = 0
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                do {
                    if ContinuousClock.now >= nextFigures {
                        let counting = ContinuousClock.now
                        nextFigures = counting + Self.figuresInterval
                        metrics.subscriptionFigures(try await queue.subscriptionFigures())
                        nextFigures = counting + Self.figuresDelay(counting: .now - counting)
                    }
                    let stores = (client == nil ? [] : [Store.apple]) + (google == nil ? [] : [.google])
                    if !stores.isEmpty {
                        // A free place first, so that a claimed row's lease runs while it is read, not queued.
                        if inFlight == Self.concurrentReads, await reads.next() != nil { inFlight -= 1 }
                        let after = cursor.bound(at: .now)
                        let owed = try await queue.claimSubscriptionRead(lease: lease, stores: stores, after: after)
                        cursor.claimed(dueAt: owed?.dueAtMicroseconds)
                        if let owed {
                            inFlight += 1
                            reads.addTask { await self.read(owed) }
                            continue
                        }
                        // Nothing due past the point: look from the start before waiting.
                        if after != nil { continue }
                    }
                } catch {
                    logger.warning(
                        "subscription reads: the database is unavailable; trying again",
                        metadata: [LogKey.error: "\(error)"]
                    )
                }
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.pollInterval) }
            }
            await reads.waitForAll()
        }
    }

    /// Reads one claimed subscription from its store.
    private func read(_ owed: OwedSubscriptionRead) async {
        switch owed.store {
        case .apple: if let client { await read(owed, client: client) }
        case .google: if let google { await read(owed, google: google) }
        }
    }

    /// The store refused the read for good (Apple's 404 4040010, Google's 404 or 410): a lost renewal would stay lost,
    /// so it is read again, slowly, and shows as failing until the store answers, news comes, or its entitlement
    /// ended over 60 days ago.
    func fail(_ owed: OwedSubscriptionRead, reason: String, store: Store, metadata: Logger.Metadata) async throws {
        let retried = try await queue.failSubscriptionRead(owed, error: reason, retryAfter: retryInterval)
        metrics.recordSubscriptionRead(result: "failed")
        let name = store == .apple ? "Apple" : "Google"
        logger.error(
            retried
                ? "\(name) refused to read a subscription; it is read again later, or on its next news"
                : "\(name) refused to read a subscription whose entitlement ended over 60 days ago; it is not read again",
            metadata: metadata.merging([
                LogKey.error: "\(reason)",
                "next": retried ? "in \(String(format: "%.0f", retryInterval.seconds)) s" : "never",
            ]) { $1 }
        )
    }

    /// A transient failure: the row is due again after the backoff (or what the store asked to wait).
    func retry(
        _ owed: OwedSubscriptionRead,
        reason: String,
        notBefore: Duration? = nil,
        metadata: Logger.Metadata
    ) async throws {
        let delay = max(backoff.delay(afterAttempt: owed.attempts), notBefore ?? .zero)
        try await queue.retrySubscriptionRead(owed, after: delay, error: reason)
        metrics.recordSubscriptionRead(result: "retry")
        logger.warning(
            "a subscription's re-read failed; retrying",
            metadata: metadata.merging([
                LogKey.error: "\(reason)", "next": "in \(String(format: "%.1f", delay.seconds)) s",
            ]) { $1 }
        )
    }
}
