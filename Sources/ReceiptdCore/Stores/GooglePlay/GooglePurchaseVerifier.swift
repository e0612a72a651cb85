import Foundation
import Logging
import Synchronization

/// Google Play purchase jobs: `purchases.products.get` for the token under the order's product, its answer
/// sorted by `GooglePlayClassifier` into store-neutral purchases (or a wait, for a pending one).
final class GooglePurchaseVerifier: PurchaseVerifier {
    let configuration: GooglePlayConfiguration
    /// `nil` when Google Play is not configured: jobs wait with the reason.
    let client: GooglePlayClient?
    let logger: Logger
    /// Set once a 403 was logged loudly.
    private let reportedForbidden = Mutex(false)

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
        let answer: GooglePlayClient.Answer
        do {
            answer = try await client.purchase(productID: job.order.productID, token: job.input)
        } catch let error as GoogleAuthError {
            return VerificationAttempt(
                verdict: .retry(TransientFailure(errorClass: .credentials, reason: "Google token endpoint: \(error)"))
            )
        } catch {
            return VerificationAttempt(
                verdict: .retry(TransientFailure(errorClass: .transport, reason: "Google Play: \(error)"))
            )
        }
        if answer.status == 403,
            reportedForbidden.withLock({ reported in
                defer { reported = true }
                return !reported
            })
        {
            logger.critical(
                "Google Play refused access (HTTP 403): grant the service account access to GOOGLE_PLAY_PACKAGE_NAME in Play Console; jobs keep retrying"
            )
        }
        let waited = max(0, Date().timeIntervalSince1970 - Double(job.createdAtMilliseconds) / 1000)
        return GooglePlayClassifier.classify(
            status: answer.status,
            purchase: answer.status == 200 ? answer.decoded(GoogleProductPurchase.self) : nil,
            errorMessage: answer.status == 200 ? nil : answer.errorMessage,
            retryAfter: answer.headers.first(name: "Retry-After").flatMap { RetryAfter.delay(from: $0) },
            lookup: .init(token: job.input, productID: job.order.productID, waited: .seconds(waited)),
            configuration: configuration
        )
    }
}
