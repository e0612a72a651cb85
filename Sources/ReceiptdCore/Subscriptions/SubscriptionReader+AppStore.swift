import Foundation
import Logging

extension SubscriptionReader {
    /// Reads an App Store subscription with Get All Subscription Statuses (and, when its latest period does not
    /// follow the ledger's period before it, Get Transaction History for the periods between).
    func read(_ owed: OwedSubscriptionRead, client: ServerAPIClient) async {
        let metadata: Logger.Metadata = [
            "subscription": "\(owed.subscriptionID)", "environment": "\(owed.environment.rawValue)",
        ]
        let outcome = await client.subscriptionStatuses(
            originalTransactionID: owed.originalTransactionID,
            environment: owed.environment
        )
        do {
            switch outcome.answer {
            case .found(let body):
                do {
                    let items = try await self.items(in: body)
                    let earlier: [SubscriptionReadItem]
                    switch try await earlierPeriods(owed, before: items, client: client) {
                    case .found(let periods):
                        earlier = periods
                    case .later(let delay, let reason):
                        try await retry(owed, reason: reason, notBefore: delay, metadata: metadata)
                        return
                    case .postponed(let delay):
                        try await queue.retrySubscriptionRead(owed, after: delay, error: nil)
                        return
                    }
                    let enqueued = try await queue.recordSubscriptionRead(owed, items: items, earlierPeriods: earlier)
                    metrics.recordSubscriptionRead(result: enqueued > 0 ? "periods_found" : "read")
                    if enqueued > 0 {
                        logger.notice(
                            "a subscription's re-read found periods the ledger lacked; each is its own order",
                            metadata: metadata.merging(["periods": "\(enqueued)"]) { $1 }
                        )
                    }
                } catch let garbled as GarbledAnswer {
                    try await retry(owed, reason: garbled.reason, metadata: metadata)
                }
            case .verdict(.postpone(let delay, _)):
                try await queue.retrySubscriptionRead(owed, after: delay, error: nil)
            case .verdict(.retry(let failure)):
                try await retry(owed, reason: failure.reason, notBefore: failure.notBefore, metadata: metadata)
            case .verdict(let verdict):
                let reason = if case .reject(let why) = verdict { why } else { "\(outcome.label): unexpected answer" }
                try await fail(owed, reason: reason, store: .apple, metadata: metadata)
            }
        } catch {
            // The lease returns the row; reading it twice does no harm.
            logger.warning(
                "could not record a subscription's re-read; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
        }
    }

    /// What the history says of the periods before the latest.
    private enum EarlierPeriods {
        /// The periods the ledger lacks, oldest first (none when the latest is no renewal the ledger lacks).
        case found([SubscriptionReadItem])
        /// The history could not be read now: the whole read is tried again.
        case later(Duration?, String)
        /// No Server API slot was free: the read is tried again after `delay`, no failure counted.
        case postponed(Duration)
    }

    /// When the latest period begins after the ledger's period before it ends, earlier ones may be missing (two
    /// renewals whose notifications were lost, or a renewal whose news came when the one before it had none): Get
    /// Transaction History, oldest first, names every period of the subscription, and those between the ledger's and
    /// the latest that the ledger lacks are enqueued with it. The first period is its checkout's, never made a renewal
    /// order here.
    private func earlierPeriods(
        _ owed: OwedSubscriptionRead,
        before items: [SubscriptionReadItem],
        client: ServerAPIClient
    ) async throws -> EarlierPeriods {
        let renewals = items.filter {
            $0.snapshot != nil && $0.transactionID != owed.originalTransactionID && !$0.isRevoked
        }
        // A renewal that begins where the ledger's period before it ends follows it: nothing can be missing between.
        // Only one bought later (a renewal missed, or a lapse recovered) needs the history. The ledger is asked, not
        // the row: news of the latest period moves the row past the one missing.
        guard let latest = renewals.first, let start = latest.purchaseDateMilliseconds else { return .found([]) }
        let before =
            try await queue.ledgerPeriodEnd(of: owed.subscriptionID, before: start) ?? owed.expiresAtMilliseconds
        guard start > (before ?? .min) + SubscriptionRereadPlanner.followingTolerance else { return .found([]) }
        var candidates: [SubscriptionReadItem] = []
        var revision: String? = nil
        for _ in 0..<ServerAPIClient.historyPageLimit {
            let outcome = await client.get(
                owed.environment,
                .transactionHistory,
                path: ServerAPIClient.historyPath(owed.originalTransactionID, revision: revision)
            )
            let body: Data
            switch outcome.answer {
            case .found(let found): body = found
            case .verdict(.postpone(let delay, _)): return .postponed(delay)
            case .verdict(.retry(let failure)): return .later(failure.notBefore, failure.reason)
            case .verdict:
                // Refused for good: the latest period is still enqueued; the earlier ones wait for their news.
                logger.warning(
                    "Get Transaction History refused a subscription's history; only its latest period is read",
                    metadata: ["subscription": "\(owed.subscriptionID)"]
                )
                return .found([])
            }
            guard let page = try? JSONDecoder().decode(HistoryPage.self, from: body) else {
                return .later(nil, "Get Transaction History: the answer is not its JSON")
            }
            for signed in page.signedTransactions {
                let transaction: SignedTransaction
                do {
                    transaction = try await jws.verify(
                        signed,
                        noun: "signed transaction",
                        read: { try SignedTransaction(json: $0) },
                        signedDate: \.signedDate
                    )
                } catch {
                    return .later(nil, "Get Transaction History: \(error)")
                }
                guard transaction.bundleID == bundleID,
                    transaction.originalTransactionID == owed.originalTransactionID,
                    transaction.transactionID != owed.originalTransactionID,
                    let period = transaction.period, !period.isUpgraded,
                    transaction.revocationDateMilliseconds == nil,
                    (transaction.purchaseDateMilliseconds ?? .max) < (latest.purchaseDateMilliseconds ?? 0)
                else { continue }
                candidates.append(
                    SubscriptionReadItem(transaction: transaction, signedTransaction: signed, snapshot: nil)
                )
            }
            guard page.hasMore, let next = page.revision, !next.isEmpty else { break }
            revision = next
        }
        let lacking = try await queue.periodsLacking(candidates.map(\.transactionID))
        return .found(candidates.filter { lacking.contains($0.transactionID) })
    }

    /// Get Transaction History v2's page.
    private struct HistoryPage: Decodable {
        var revision: String?
        var hasMore: Bool
        var signedTransactions: [String]
    }

    /// An answer that is not what Apple sends: retried, as a garbled store answer always is.
    private struct GarbledAnswer: Error {
        var reason: String
    }

    /// The answer's subscriptions, each transaction and renewal info verified and of this app.
    private func items(in body: Data) async throws -> [SubscriptionReadItem] {
        guard let statuses = try? JSONDecoder().decode(AppleSubscriptionStatuses.self, from: body) else {
            throw GarbledAnswer(reason: "Get All Subscription Statuses: the answer is not its JSON")
        }
        var items: [SubscriptionReadItem] = []
        let now = Date()
        for last in statuses.data.flatMap(\.lastTransactions) {
            let transaction: SignedTransaction
            let renewal: AppleRenewalInfo?
            do {
                transaction = try await jws.verify(
                    last.signedTransactionInfo,
                    noun: "signed transaction",
                    read: { try SignedTransaction(json: $0) },
                    signedDate: \.signedDate
                )
                renewal = try await last.signedRenewalInfo.asyncMap { signed in
                    try await jws.verify(
                        signed,
                        noun: "signed renewal info",
                        read: { try AppleRenewalInfo(json: $0) },
                        signedDate: \.signedDate
                    )
                }
            } catch {
                throw GarbledAnswer(reason: "Get All Subscription Statuses: \(error)")
            }
            guard transaction.bundleID == bundleID else {
                throw GarbledAnswer(
                    reason: "Get All Subscription Statuses: a transaction of bundle \(transaction.bundleID)"
                )
            }
            items.append(
                SubscriptionReadItem(
                    transaction: transaction,
                    signedTransaction: last.signedTransactionInfo,
                    snapshot: AppleSubscriptionReading.snapshot(
                        of: transaction,
                        status: AppleSubscriptionReading.Status(rawValue: last.status),
                        renewal: renewal,
                        now: now
                    )
                )
            )
        }
        return items
    }
}

extension Optional {
    /// `map` for an async transform.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
