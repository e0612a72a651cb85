import Foundation
import Logging
import ServiceLifecycle

/// The catch-up: every `APPLE_NOTIFICATION_HISTORY_INTERVAL`, one daemon at a time (an advisory lock), asks Get
/// Notification History for what Apple sent since the last window, production and (with `RECEIPTD_SANDBOX=accept`)
/// the sandbox, page by page through the Server API's shared pacing, and records every notification whose
/// signature verifies as the intake does, with source `history` (one the intake has changes nothing). A record
/// that fails verification is skipped and logged. An environment's cursor advances only once every page of its
/// window is recorded; each run's success or failure is written on its `iap.notification_history_cursor` row.
package final class NotificationHistoryPoller: Service {
    /// Verifies one `signedPayload` and gives the notification it carries.
    package typealias Verify = @Sendable (String) async throws -> StoreNotification

    private let store: any NotificationHistoryStore
    private let client: ServerAPIClient
    private let verify: Verify
    private let environments: [StoreEnvironment]
    private let interval: Duration
    private let logger: Logger

    /// How far back the first run looks.
    static let firstLookBack: Duration = .seconds(86_400)
    /// How much each window overlaps the last: what Apple signed just before the last window ended but made
    /// available later is still found; the notification's id absorbs the repeats.
    static let overlap: Duration = .seconds(3600)
    /// Pages read in one window at most, in case an answer keeps saying `hasMore`.
    static let pageLimit = 1000
    /// Times a page waits for a Server API slot before the run gives up until the next interval.
    static let slotWaits = 30
    /// The longest one wait for a slot: a longer one (the API blocked for an hour after a 429) ends the run until
    /// the next interval rather than hold the poller, and a graceful shutdown, that long.
    static let longestSlotWait: Duration = .seconds(10)

    init(
        store: any NotificationHistoryStore,
        client: ServerAPIClient,
        verify: @escaping Verify,
        sandbox: SandboxPolicy,
        interval: Duration,
        logger: Logger
    ) {
        self.store = store
        self.client = client
        self.verify = verify
        environments = sandbox == .accept ? [.production, .sandbox] : [.production]
        self.interval = interval
        self.logger = logger
    }

    /// Catches up until graceful shutdown, at once and then every interval.
    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                if let recorded = try await pollOnce(), recorded > 0 {
                    logger.notice(
                        "recorded notifications the intake had not received, from Apple's notification history",
                        metadata: ["notifications": "\(recorded)"]
                    )
                }
            } catch {
                logger.warning(
                    "notification history: catch-up failed; trying again next interval",
                    metadata: [LogKey.error: "\(error)"]
                )
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
        }
    }

    /// One catch-up of every environment under the lock; `nil` when another session holds it. Returns the
    /// notifications newly recorded. Throws the first environment's failure once every environment was tried.
    package func pollOnce() async throws -> Int? {
        try await store.withNotificationHistoryLock { cursor in
            var recorded = 0
            var firstFailure: (any Error)?
            for environment in self.environments {
                do {
                    recorded += try await self.catchUp(environment, cursor: cursor)
                } catch {
                    firstFailure = firstFailure ?? error
                    self.logger.warning(
                        "notification history: catch-up failed",
                        metadata: ["environment": "\(environment.rawValue)", LogKey.error: "\(error)"]
                    )
                    try? await cursor.recordFailure(environment, error: "\(error)")
                }
            }
            if let firstFailure { throw firstFailure }
            return recorded
        }
    }

    /// How far back Apple keeps `environment`'s notification history, a day short of what it documents (180 days
    /// in production, 30 in the sandbox), so that clocks that differ a little still agree.
    static func retention(_ environment: StoreEnvironment) -> Duration {
        .seconds(86_400 * (environment == .production ? 179 : 29))
    }

    /// The window to ask for at `now`, from the cursor's `stored` end: an hour before it (a day before `now` the
    /// first time), never earlier than Apple keeps history, never after `now`.
    static func window(
        _ environment: StoreEnvironment,
        stored: Int64?,
        now: Date = Date()
    ) -> (start: Int64, end: Int64) {
        let end = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let earliest = end - milliseconds(retention(environment))
        let wanted = stored.map { $0 - milliseconds(overlap) } ?? end - milliseconds(firstLookBack)
        return (min(max(wanted, earliest), end), end)
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000
    }

    /// One environment's window, every page of it; returns the notifications newly recorded.
    private func catchUp(_ environment: StoreEnvironment, cursor: any NotificationHistoryCursor) async throws -> Int {
        let (start, end) = Self.window(environment, stored: try await cursor.endMilliseconds(environment))
        // A cursor ahead of this daemon's clock (another daemon's ran fast): nothing to ask yet.
        guard start < end else { return 0 }
        var recorded = 0
        var token: String?
        var pages = 0
        repeat {
            let page = try await self.page(environment, start: start, end: end, token: token)
            for entry in page.notificationHistory ?? [] {
                let notification: StoreNotification
                do {
                    notification = try await verify(entry.signedPayload)
                } catch {
                    // Never fatal: a notification that cannot be verified would stop every later one.
                    logger.warning(
                        "notification history: a notification failed verification; skipped",
                        metadata: ["environment": "\(environment.rawValue)", LogKey.error: "\(error)"]
                    )
                    continue
                }
                var found = notification
                found.source = .history
                if try await cursor.record(found) { recorded += 1 }
            }
            pages += 1
            token = page.hasMore == true ? page.paginationToken : nil
        } while token != nil && pages < Self.pageLimit
        guard token == nil else {
            throw NotificationHistoryFailure(
                verdict: .retry(
                    TransientFailure(
                        errorClass: .garbled,
                        reason: "Get Notification History (\(environment.rawValue)): over \(Self.pageLimit) pages"
                    )
                )
            )
        }
        try await cursor.advance(environment, to: end)
        return recorded
    }

    /// One page, waiting for a Server API slot when none is free.
    private func page(
        _ environment: StoreEnvironment,
        start: Int64,
        end: Int64,
        token: String?
    ) async throws -> NotificationHistoryPage {
        var waits = 0
        while true {
            switch await client.notificationHistory(
                environment,
                startMilliseconds: start,
                endMilliseconds: end,
                paginationToken: token
            ) {
            case .success(let page):
                return page
            case .failure(let failure):
                guard case .postpone(let wait, _) = failure.verdict, waits < Self.slotWaits,
                    wait <= Self.longestSlotWait
                else { throw failure }
                waits += 1
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            }
        }
    }
}
