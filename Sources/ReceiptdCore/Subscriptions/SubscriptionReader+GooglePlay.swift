import Foundation
import Logging

extension SubscriptionReader {
    /// Reads a Google Play subscription with `purchases.subscriptionsv2.get` and its latest token: what Google says
    /// is written, and a latest period the ledger lacks is enqueued as its own order, whose job looks the token up
    /// again; that lookup names every period, so the settle also delivers those between the ledger's and the latest.
    func read(_ owed: OwedSubscriptionRead, google: GooglePlayClient) async {
        let metadata: Logger.Metadata = ["subscription": "\(owed.subscriptionID)"]
        do {
            guard let token = owed.purchaseToken else {
                try await fail(owed, reason: "no purchase token to read it with", store: .google, metadata: metadata)
                return
            }
            let answer: GooglePlayClient.Answer
            do {
                answer = try await google.subscription(token: token)
            } catch {
                try await retry(owed, reason: "Google Play subscriptionsv2: \(error)", metadata: metadata)
                return
            }
            guard answer.status == 200 else {
                let refusal = GooglePlayClassifier.refusal(
                    status: answer.status,
                    errorMessage: answer.errorMessage,
                    retryAfter: answer.headers.first(name: "Retry-After").flatMap { RetryAfter.delay(from: $0) }
                )
                if case .reject(let why) = refusal.verdict {
                    try await fail(owed, reason: why, store: .google, metadata: metadata)
                } else if case .retry(let failure) = refusal.verdict {
                    try await retry(owed, reason: failure.reason, notBefore: failure.notBefore, metadata: metadata)
                } else {
                    try await retry(owed, reason: "Google Play: HTTP \(answer.status)", metadata: metadata)
                }
                return
            }
            let now = Date()
            guard let purchase = answer.decoded(GoogleSubscriptionPurchase.self),
                var snapshot = GoogleSubscriptionReading.snapshot(of: purchase, token: token, now: now)
            else {
                try await retry(
                    owed,
                    reason: "Google Play subscriptionsv2: a 200 without subscriptionState or lineItems",
                    metadata: metadata
                )
                return
            }
            // A re-read writes the row it read.
            snapshot.subscriptionID = owed.subscriptionID
            let latest = GoogleSubscriptionReading.periods(of: purchase, token: token, now: now).last
            let item = SubscriptionReadItem(
                transactionID: latest?.transactionID ?? snapshot.latestTransactionID ?? "",
                originalTransactionID: owed.originalTransactionID,
                productID: snapshot.productID,
                purchaseDateMilliseconds: latest?.purchaseDateMilliseconds,
                isRevoked: latest == nil,
                input: token,
                snapshot: snapshot
            )
            let enqueued = try await queue.recordSubscriptionRead(owed, items: [item], earlierPeriods: [])
            metrics.recordSubscriptionRead(result: enqueued > 0 ? "periods_found" : "read")
            if enqueued > 0 {
                logger.notice(
                    "a subscription's re-read found periods the ledger lacked; each is its own order",
                    metadata: metadata
                )
            }
        } catch {
            // The lease returns the row; reading it twice does no harm.
            logger.warning(
                "could not record a subscription's re-read; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
        }
    }
}
