import Foundation
import Logging
import ServiceLifecycle

/// Asks Google what a recorded notification needs before it can be processed (rows of `iap.store_notifications`
/// with `awaiting_lookup`), in every daemon: a `ONE_TIME_PRODUCT_PURCHASED`'s purchase (productsv2: its state,
/// buyer's `obfuscatedExternalAccountId`, order id, quantity) and a partial refund's entries in the voided
/// purchases list (`voidedQuantity`). The answer goes into the payload, `awaiting_lookup` is cleared, and the
/// processors are told (`NOTIFY iap_store_notification`, and `processor` rung here).
///
/// A row is claimed by pushing its `run_at` one lease ahead, so another daemon skips it and a daemon that dies
/// mid-call leaves it to the next; every write checks the claim is still its own. No transaction stays open while
/// Google is asked. A transient failure puts the row off by the backoff; Google answering that it does not know
/// the token (404, 410, 400) processes it as `failed`; with Google Play not configured it waits a minute, burning
/// no attempts.
package final class GoogleNotificationLookup: Service {
    private let queue: any GoogleLookupQueue
    private let configuration: GooglePlayConfiguration
    private let client: GooglePlayClient?
    private let backoff: Backoff
    private let interval: Duration
    private let lease: Duration
    private let logger: Logger
    private let metrics: ReceiptdMetrics
    private let doorbell: Doorbell
    private let processor: Doorbell
    /// Most rows one pass claims.
    static let batch = 10
    /// How long a row waits while Google Play is not configured.
    static let notConfiguredWait = Duration.seconds(60)
    /// How far before the notification's event the voided purchases list is read from.
    static let voidedLookBack: Int64 = 86_400_000
    /// Tries while Google does not list a partial refund yet; after them the empty list is stored (and the
    /// processor records the notification as `failed`; the voided poll remains the backstop).
    static let unlistedTries = 5

    /// Creates the worker; `client` is nil when Google Play is not configured. It passes every `interval` or
    /// when `doorbell` rings, and rings `processor` after storing an answer.
    init(
        queue: any GoogleLookupQueue,
        configuration: GooglePlayConfiguration,
        client: GooglePlayClient?,
        backoff: Backoff,
        interval: Duration,
        lease: Duration,
        logger: Logger,
        metrics: ReceiptdMetrics,
        doorbell: Doorbell = Doorbell(),
        processor: Doorbell = Doorbell()
    ) {
        self.queue = queue
        self.configuration = configuration
        self.client = client
        self.backoff = backoff
        self.interval = interval
        self.lease = lease
        self.logger = logger
        self.metrics = metrics
        self.doorbell = doorbell
        self.processor = processor
    }

    /// Looks up until graceful shutdown; a call in flight finishes first.
    package func run() async throws {
        var database = ReconnectBackoff()
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                while try await lookUpDue() == Self.batch, !Task.isCancelled {}
                if database.succeeded() { logger.notice("Google notification lookups: database reachable again") }
            } catch {
                if database.failed() {
                    logger.error(
                        "Google notification lookups failed (database unreachable?); trying again",
                        metadata: [LogKey.error: "\(error)"]
                    )
                }
            }
            await cancelWhenGracefulShutdown { await self.doorbell.wait(upTo: self.interval) }
        }
    }

    /// One pass: claims due rows and asks Google about each; returns how many it claimed.
    @discardableResult
    package func lookUpDue() async throws -> Int {
        let claimed = try await queue.claimLookups(limit: Self.batch, lease: lease)
        var stored = false
        for lookup in claimed {
            stored = try await lookUp(lookup) || stored
        }
        if stored { processor.ring() }
        return claimed.count
    }

    /// What one call to Google ended in.
    private enum Outcome {
        case answer(key: String, json: String)
        case retry(String, after: Duration?)
        case unknownToken(String)
    }

    /// Asks Google about one row and writes what it said; true when an answer was stored.
    private func lookUp(_ lookup: ClaimedLookup) async throws -> Bool {
        guard let client, configuration.unavailable == nil else {
            let remedy = configuration.unavailable ?? "set GOOGLE_SERVICE_ACCOUNT_FILE"
            try await queue.deferLookup(
                lookup,
                delay: Self.notConfiguredWait,
                error: "Google Play is not configured: \(remedy)",
                countsAttempt: false
            )
            return false
        }
        let payload: GoogleNotificationPayload
        do {
            payload = try GoogleNotificationPayload(payload: lookup.payload)
        } catch let error as NotificationPayloadError {
            try await fail(lookup, error.reason)
            return false
        }
        let outcome: Outcome
        if let oneTime = payload.notification.oneTimeProductNotification, oneTime.notificationType == 1 {
            outcome = await purchase(oneTime, client: client)
        } else if let news = payload.notification.subscriptionNotification, let token = news.purchaseToken {
            // A subscription bought, or a renewal that waited a day for a subscription no row has.
            outcome = await subscription(token: token, client: client)
        } else if let voided = payload.notification.voidedPurchaseNotification, voided.refundType == 2 {
            outcome = await voidedEntries(
                voided,
                since: payload.notification.eventTimeMillis.flatMap { Int64($0) },
                attempts: lookup.attempts,
                client: client
            )
        } else {
            // Nothing to ask (a row flagged by mistake): the processor takes it as it is.
            outcome = .answer(key: "lookup", json: "null")
        }
        switch outcome {
        case .answer(let key, let json):
            return try await queue.storeLookup(lookup, key: key, answer: json)
        case .retry(let reason, let after):
            let delay = max(after ?? .zero, backoff.delay(afterAttempt: lookup.attempts))
            logger.info(
                "Google notification lookup put off",
                metadata: ["type": "\(lookup.type)", LogKey.error: "\(reason)"]
            )
            try await queue.deferLookup(lookup, delay: delay, error: reason, countsAttempt: true)
            return false
        case .unknownToken(let reason):
            try await fail(lookup, reason)
            return false
        }
    }

    private func fail(_ lookup: ClaimedLookup, _ reason: String) async throws {
        try await queue.failLookup(lookup, error: reason)
        metrics.storeNotification(store: Store.google.rawValue, type: lookup.type, result: .failed)
        logger.warning(
            "Google notification could not be looked up; its row's error says why",
            metadata: ["type": "\(lookup.type)"]
        )
    }

    /// productsv2 of the purchase.
    private func purchase(
        _ oneTime: GoogleDeveloperNotification.OneTimeProduct,
        client: GooglePlayClient
    ) async -> Outcome {
        let answer: GooglePlayClient.Answer
        do {
            answer = try await client.purchase(token: oneTime.purchaseToken)
        } catch {
            return .retry("Google Play: \(error)", after: nil)
        }
        guard answer.status == 200 else { return Self.failure(answer, aboutToken: true) }
        guard (try? JSONSerialization.jsonObject(with: answer.body)) is [String: Any],
            let json = String(data: answer.body, encoding: .utf8)
        else { return .retry("Google Play answered 200 with a body that is not a JSON object", after: nil) }
        return .answer(key: "purchase", json: json)
    }

    /// subscriptionsv2 of a subscription bought.
    private func subscription(token: String, client: GooglePlayClient) async -> Outcome {
        let answer: GooglePlayClient.Answer
        do {
            answer = try await client.subscription(token: token)
        } catch {
            return .retry("Google Play: \(error)", after: nil)
        }
        guard answer.status == 200 else { return Self.failure(answer, aboutToken: true) }
        guard (try? JSONSerialization.jsonObject(with: answer.body)) is [String: Any],
            let json = String(data: answer.body, encoding: .utf8)
        else { return .retry("Google Play answered 200 with a body that is not a JSON object", after: nil) }
        return .answer(key: "subscription", json: json)
    }

    /// The voided purchases list's entries of the purchase, from a day before the event.
    private func voidedEntries(
        _ voided: GoogleDeveloperNotification.VoidedPurchase,
        since event: Int64?,
        attempts: Int,
        client: GooglePlayClient
    ) async -> Outcome {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let start = min(max((event ?? now) - Self.voidedLookBack, GoogleVoidedPoller.earliestStart()), now)
        var entries: [Any] = []
        var pageToken: String?
        repeat {
            let answer: GooglePlayClient.Answer
            do {
                answer = try await client.voided(startTime: start, endTime: now, pageToken: pageToken)
            } catch {
                return .retry("Google Play: \(error)", after: nil)
            }
            // Any refusal here is about the list request, not the token: worth another try.
            guard answer.status == 200 else { return Self.failure(answer, aboutToken: false) }
            let fields = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
            for entry in fields?["voidedPurchases"] as? [[String: Any]] ?? []
            where entry["purchaseToken"] as? String == voided.purchaseToken {
                entries.append(entry)
            }
            pageToken = answer.decoded(GoogleVoidedPurchasesPage.self)?.nextPageToken
        } while pageToken != nil
        if entries.isEmpty && attempts < Self.unlistedTries {
            return .retry("Google does not list this partial refund yet", after: nil)
        }
        guard let data = try? JSONSerialization.data(withJSONObject: entries),
            let json = String(data: data, encoding: .utf8)
        else { return .retry("the voided purchases could not be written as JSON", after: nil) }
        return .answer(key: "voided", json: json)
    }

    /// A non-200 answer: the token unknown to Google for good (404, 410, 400 to a purchase lookup), else worth
    /// another try.
    private static func failure(_ answer: GooglePlayClient.Answer, aboutToken: Bool) -> Outcome {
        let message = answer.errorMessage.map { ": \($0)" } ?? ""
        if aboutToken && [400, 404, 410].contains(answer.status) {
            return .unknownToken("Google Play: HTTP \(answer.status)\(message)")
        }
        return .retry(
            "Google Play: HTTP \(answer.status)\(message)",
            after: answer.headers.first(name: "Retry-After").flatMap { RetryAfter.delay(from: $0) }
        )
    }
}
