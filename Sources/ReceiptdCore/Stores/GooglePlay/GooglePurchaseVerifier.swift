import Crypto
import Foundation
import Logging
import Synchronization

/// Google Play purchase jobs: `purchases.products.get` for the token under the order's product, its answer
/// turned into store-neutral purchases (or a wait, for a pending one).
final class GooglePurchaseVerifier: PurchaseVerifier {
    let configuration: GooglePlayConfiguration
    /// `nil` when Google Play is not configured: jobs wait with the reason.
    let client: GooglePlayClient?
    let logger: Logger
    /// How long to wait before asking again while Google Play is not configured.
    static let unconfiguredWait: Double = 60
    /// Set once a 403 was logged loudly.
    private let reportedForbidden = Mutex(false)

    init(configuration: GooglePlayConfiguration, client: GooglePlayClient?, logger: Logger) {
        self.configuration = configuration
        self.client = client
        self.logger = logger
    }

    func attempt(_ job: ClaimedJob) async -> VerificationAttempt {
        guard let client, configuration.unavailable == nil else {
            return VerificationAttempt(
                verdict: .postpone(
                    seconds: Self.unconfiguredWait,
                    reason: configuration.unavailable ?? "Google Play is not configured"
                ),
                calledStore: false
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
        let described = "Google Play: HTTP \(answer.status)" + (answer.errorMessage.map { " (\($0))" } ?? "")
        let verdict: Verdict
        switch answer.status {
        case 200:
            return judge(answer.body, job: job)
        case 400:
            verdict = .reject(reason: described + ": the purchase token is invalid")
        case 404, 410:
            verdict = .reject(reason: described + ": no such purchase token")
        case 401:
            verdict = .retry(
                TransientFailure(errorClass: .credentials, reason: described + ": the access token was refused twice")
            )
        case 403:
            if reportedForbidden.withLock({ reported in
                defer { reported = true }
                return !reported
            }) {
                logger.critical(
                    "Google Play refused access (HTTP 403): grant the service account access to GOOGLE_PLAY_PACKAGE_NAME in Play Console; jobs keep retrying"
                )
            }
            verdict = .retry(
                TransientFailure(errorClass: .credentials, reason: described + ": no access to this package")
            )
        default:
            let retryAfter = answer.headers.first(name: "Retry-After").flatMap { RetryAfter.seconds(from: $0) }
            verdict = .retry(TransientFailure(errorClass: .http, reason: described, notBefore: retryAfter))
        }
        return VerificationAttempt(verdict: verdict, httpStatus: answer.status)
    }

    /// A Google purchase's `transaction_id` in the ledger: its `orderId`, or for a test purchase, which has none,
    /// the SHA-256 of its token.
    static func ledgerID(orderID: Any?, token: String) -> String {
        (orderID as? String).flatMap { $0.isEmpty ? nil : $0 }
            ?? SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A `ProductPurchase`: purchased pays (per the outcome rules), cancelled pays nothing, pending waits.
    private func judge(_ body: Data, job: ClaimedJob) -> VerificationAttempt {
        guard let object = try? JSONSerialization.jsonObject(with: body), let fields = object as? [String: Any],
            let state = FlexibleJSON.integer(fields["purchaseState"])
        else {
            return VerificationAttempt(
                verdict: .retry(
                    TransientFailure(errorClass: .garbled, reason: "Google Play: a 200 without purchaseState")
                ),
                httpStatus: 200
            )
        }
        let environment: AppleEnvironment = FlexibleJSON.integer(fields["purchaseType"]) == 0 ? .sandbox : .production
        if state == 2 {
            let waited = max(0, Date().timeIntervalSince1970 - Double(job.createdAtMilliseconds) / 1000)
            let wait = PendingSchedule.delay(afterWaiting: waited)
            return VerificationAttempt(
                verdict: .postpone(
                    seconds: wait,
                    reason:
                        "pending at Google (purchaseState 2, e.g. cash or bank transfer): asking again in \(Int(wait / 60)) min"
                ),
                environment: environment,
                storeStatus: 2,
                httpStatus: 200
            )
        }
        let orderID = Self.ledgerID(orderID: fields["orderId"], token: job.input)
        let quantity: Int? =
            fields["quantity"] == nil
            ? 1
            : FlexibleJSON.integer(fields["quantity"]).flatMap { (1...Int64(Int32.max)).contains($0) ? Int($0) : nil }
        let purchase = VerifiedPurchase(
            transactionID: orderID,
            productID: job.order.productID,
            quantity: quantity,
            purchaseDateMilliseconds: FlexibleJSON.integer(fields["purchaseTimeMillis"]).flatMap {
                (0...253_402_300_799_999).contains($0) ? $0 : nil
            },
            isCancelled: state != 0,
            accountID: (fields["obfuscatedExternalAccountId"] as? String).flatMap { $0.isEmpty ? nil : $0 },
            store: .google
        )
        let acknowledged = FlexibleJSON.integer(fields["acknowledgementState"]) == 1
        let consumed = FlexibleJSON.integer(fields["consumptionState"]) == 1
        let owed: Bool =
            switch configuration.finalize {
            case .none: false
            case .acknowledge: !acknowledged
            case .consume: !consumed
            }
        let finalization =
            state == 0 && owed
            ? GoogleFinalization(
                purchaseToken: job.input,
                productID: job.order.productID,
                action: configuration.finalize,
                overdueSeconds: configuration.finalizeOverdue.seconds
            )
            : nil
        return VerificationAttempt(
            verdict: .verified(
                VerifiedPurchases(
                    purchases: [purchase],
                    environment: environment,
                    bundleID: configuration.packageName,
                    store: .google,
                    finalization: finalization
                )
            ),
            environment: environment,
            storeStatus: Int(state),
            httpStatus: 200
        )
    }
}
