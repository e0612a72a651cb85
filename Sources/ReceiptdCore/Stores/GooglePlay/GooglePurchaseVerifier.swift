import Foundation
import Logging
import Synchronization

/// Google Play purchase jobs: productsv2 (`getproductpurchasev2`) for the token, or subscriptionsv2 for a
/// subscription's (an `auto_renewable` in the catalogue, or a token productsv2 refuses for a product nobody
/// declared), its answer sorted by `GooglePlayClassifier` into store-neutral purchases (or a wait, for a pending one).
final class GooglePurchaseVerifier: PurchaseVerifier {
    let configuration: GooglePlayConfiguration
    /// `nil` when Google Play is not configured: jobs wait with the reason.
    let client: GooglePlayClient?
    let logger: Logger
    /// Set once a 403 was logged loudly.
    private let reportedForbidden = Mutex(false)
    /// Set once a refused `orders.get` was logged.
    private let reportedOrdersRefused = Mutex(false)

    init(configuration: GooglePlayConfiguration, client: GooglePlayClient?, logger: Logger) {
        self.configuration = configuration
        self.client = client
        self.logger = logger
    }

    func attempt(_ job: ClaimedJob) async -> VerificationAttempt {
        guard let client, configuration.unavailable == nil else {
            return StoreNotConfigured.attempt(
                "Google Play",
                remedy: configuration.unavailable ?? "set GOOGLE_SERVICE_ACCOUNT_FILE"
            )
        }
        // The catalogue tells a subscription's token from a one-time product's.
        if job.productKind == .autoRenewable { return await subscriptionAttempt(job, client: client) }
        let answer: GooglePlayClient.Answer
        switch await call({ try await client.purchase(token: job.input) }) {
        case .success(let found): answer = found
        case .failure(let failed): return failed.attempt
        }
        let waited = max(0, Date().timeIntervalSince1970 - Double(job.createdAtMilliseconds) / 1000)
        let purchase = answer.status == 200 ? answer.decoded(GoogleProductPurchase.self) : nil
        let attempt = GooglePlayClassifier.classify(
            status: answer.status,
            purchase: purchase,
            errorMessage: answer.status == 200 ? nil : answer.errorMessage,
            retryAfter: answer.headers.first(name: "Retry-After").flatMap { RetryAfter.delay(from: $0) },
            lookup: .init(token: job.input, productID: job.order.productID, waited: .seconds(waited)),
            configuration: configuration
        )
        // A product nobody declared whose token Google refuses as a one-time purchase's may be a subscription's: it
        // is asked as one before the order is judged, so an honest subscriber never loses trust over the kind.
        if job.productKind == nil, case .reject = attempt.verdict {
            let subscription = await subscriptionAttempt(job, client: client)
            if case .reject = subscription.verdict { return attempt }
            return subscription
        }
        // A test purchase has no order, and no price.
        guard configuration.orderAmounts == .on, let orderID = purchase?.orderID, !orderID.isEmpty else {
            return attempt
        }
        return await withOrderAmounts(attempt, orderID: orderID, client: client)
    }

    /// The token as a subscription's: `purchases.subscriptionsv2.get`, sorted by `classifySubscription`.
    private func subscriptionAttempt(_ job: ClaimedJob, client: GooglePlayClient) async -> VerificationAttempt {
        let answer: GooglePlayClient.Answer
        switch await call({ try await client.subscription(token: job.input) }) {
        case .success(let found): answer = found
        case .failure(let failed): return failed.attempt
        }
        let waited = max(0, Date().timeIntervalSince1970 - Double(job.createdAtMilliseconds) / 1000)
        return GooglePlayClassifier.classifySubscription(
            status: answer.status,
            purchase: answer.status == 200 ? answer.decoded(GoogleSubscriptionPurchase.self) : nil,
            errorMessage: answer.status == 200 ? nil : answer.errorMessage,
            retryAfter: answer.headers.first(name: "Retry-After").flatMap { RetryAfter.delay(from: $0) },
            lookup: .init(token: job.input, productID: job.order.productID, waited: .seconds(waited)),
            configuration: configuration
        )
    }

    /// A lookup that could not be made: the retry it earns.
    private struct FailedCall: Error {
        var attempt: VerificationAttempt
    }

    /// One Android Publisher call; a failure to make it (the token endpoint, the transport) is a retry, and a 403
    /// is logged loudly once.
    private func call(
        _ request: () async throws -> GooglePlayClient.Answer
    ) async -> Result<GooglePlayClient.Answer, FailedCall> {
        let answer: GooglePlayClient.Answer
        do {
            answer = try await request()
        } catch let error as GoogleAuthError {
            return .failure(
                FailedCall(
                    attempt: VerificationAttempt(
                        verdict: .retry(
                            TransientFailure(errorClass: .credentials, reason: "Google token endpoint: \(error)")
                        )
                    )
                )
            )
        } catch {
            return .failure(
                FailedCall(
                    attempt: VerificationAttempt(
                        verdict: .retry(TransientFailure(errorClass: .transport, reason: "Google Play: \(error)"))
                    )
                )
            )
        }
        if answer.status == 403, Self.firstTime(reportedForbidden) {
            logger.critical(
                "Google Play refused access (HTTP 403): grant the service account access to GOOGLE_PLAY_PACKAGE_NAME in Play Console; jobs keep retrying"
            )
        }
        return .success(answer)
    }

    /// `attempt` with each verified purchase's price and currency from `orders.get` (`GOOGLE_PLAY_ORDER_AMOUNTS=on`).
    /// Any failure leaves them empty: an amount is for support's eyes, never a reason to hold a delivery.
    private func withOrderAmounts(
        _ attempt: VerificationAttempt,
        orderID: String,
        client: GooglePlayClient
    ) async -> VerificationAttempt {
        guard case .verified(var verified) = attempt.verdict else { return attempt }
        let order: GoogleOrder
        do {
            let answer = try await client.order(id: orderID)
            guard answer.status == 200, let decoded = answer.decoded(GoogleOrder.self) else {
                if [401, 403].contains(answer.status), Self.firstTime(reportedOrdersRefused) {
                    logger.error(
                        "Google Play refused orders.get (HTTP \(answer.status)): prices and currencies stay empty; grant the service account the financial data permission in Play Console, or set GOOGLE_PLAY_ORDER_AMOUNTS=off",
                        metadata: [LogKey.error: "\(answer.errorMessage ?? "")"]
                    )
                } else {
                    logger.info(
                        "orders.get gave no amount; the purchase's price stays empty",
                        metadata: ["status": "\(answer.status)"]
                    )
                }
                return attempt
            }
            order = decoded
        } catch {
            logger.info("orders.get failed; the purchase's price stays empty", metadata: [LogKey.error: "\(error)"])
            return attempt
        }
        let count = verified.purchases.count
        for index in verified.purchases.indices {
            let purchase = verified.purchases[index]
            guard let money = order.amount(ofLine: index, productID: purchase.productID, lineCount: count) else {
                continue
            }
            verified.purchases[index].details.priceMilliunits = money.milliunits
            verified.purchases[index].details.currency = money.currency
        }
        var enriched = attempt
        enriched.verdict = .verified(verified)
        return enriched
    }

    /// True the first time `flag` is asked about, so a refusal is logged loudly once.
    private static func firstTime(_ flag: borrowing Mutex<Bool>) -> Bool {
        flag.withLock { reported in
            defer { reported = true }
            return !reported
        }
    }
}
