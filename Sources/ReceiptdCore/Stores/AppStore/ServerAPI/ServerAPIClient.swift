import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Synchronization

/// The App Store Server API: Get Transaction Info (`GET /inApps/v1/transactions/{id}`) and Get Transaction History
/// v2 (`GET /inApps/v2/history/{id}`), production first, the sandbox when production does not know the id, every
/// request paced through the database and classified the same way.
final class ServerAPIClient: Sendable {
    /// Endpoints, credentials, pacing and limits.
    struct Configuration: Sendable {
        var productionURL: String
        var sandboxURL: String
        var credentials: ServerAPICredentials
        var bundleID: String
        var requestTimeout: Duration
    }

    let configuration: Configuration
    let client: HTTPClient
    let pacing: ServerAPIPacing
    let signed: SignedTransactionVerifier
    let logger: Logger
    /// Set once a 401 was logged loudly, so a wrong key does not flood the log.
    let reportedUnauthorized: Mutex<Bool>

    init(
        configuration: Configuration,
        client: HTTPClient,
        pacing: ServerAPIPacing,
        signed: SignedTransactionVerifier,
        logger: Logger
    ) {
        self.configuration = configuration
        self.client = client
        self.pacing = pacing
        self.signed = signed
        self.logger = logger
        reportedUnauthorized = Mutex(false)
    }

    /// Error codes Apple documents as temporary: account not found (retryable), app not found (retryable),
    /// original transaction id not found (retryable), general internal error (retryable).
    static let retryableErrorCodes: Set<Int> = [4_040_002, 4_040_004, 4_040_006, 5_000_001]
    /// The transaction id is not in this environment.
    static let transactionIDNotFound = 4_040_010
    static let rateLimitExceeded = 4_290_000
    /// History pages read in one attempt at most (Apple sends up to 20 transactions a page); a longer history
    /// is retried, in case a page was repeated, and fails once the job's attempts run out.
    static let historyPageLimit = 100

    /// One lookup of transaction `id`: at most one request per environment.
    func lookup(_ id: String) async -> VerificationAttempt {
        let outcome = await inEitherEnvironment(id) { environment in
            await self.request(environment, path: "/inApps/v1/transactions/" + Self.pathSegment(id))
        }
        guard case .found(let body) = outcome.answer else { return outcome.attempt() }
        guard let info = try? JSONDecoder().decode(TransactionInfoAnswer.self, from: body) else {
            return outcome.attempt(
                .retry(
                    TransientFailure(
                        errorClass: .garbled,
                        reason: "\(outcome.label): 200 without signedTransactionInfo"
                    )
                )
            )
        }
        let transaction: SignedTransaction
        do {
            transaction = try await signed.verify(info.signedTransactionInfo)
        } catch {
            return outcome.attempt(.reject(reason: "Server API answer: \(error)"))
        }
        // As for a history: an environment's answer is about that environment's transaction, or not one to trust.
        guard let environment = outcome.environment, transaction.environment == environment.rawValue else {
            return outcome.attempt(
                .reject(
                    reason:
                        "\(outcome.environment?.rawValue ?? "unknown") answer holds a \(transaction.environment) transaction"
                )
            )
        }
        return outcome.attempt(TransactionVerifier.verdict(for: transaction))
    }

    /// Every transaction of the customer `id` belongs to (Get Transaction History v2), oldest first, read page by
    /// page in the environment that knows `id`; each page is one paced request and every transaction is verified.
    /// `fallbackBundleID` names the app when the history holds no transaction.
    func history(_ id: String, fallbackBundleID: String?) async -> VerificationAttempt {
        var outcome = await inEitherEnvironment(id) { environment in
            await self.request(environment, path: Self.historyPath(id, revision: nil))
        }
        var purchases: [VerifiedPurchase] = []
        var positions: [String: Int] = [:]
        var bundleID: String?
        var pages = 1
        while true {
            guard case .found(let body) = outcome.answer, let environment = outcome.environment else {
                return outcome.attempt()
            }
            guard let page = try? JSONDecoder().decode(HistoryAnswer.self, from: body) else {
                return outcome.attempt(
                    .retry(
                        TransientFailure(
                            errorClass: .garbled,
                            reason: "\(outcome.label): 200 without signedTransactions and hasMore"
                        )
                    )
                )
            }
            for jws in page.signedTransactions {
                let transaction: SignedTransaction
                do {
                    transaction = try await signed.verify(jws)
                } catch {
                    return outcome.attempt(.reject(reason: "Server API history: \(error)"))
                }
                // One history is one app in one environment; anything else is not an answer to trust.
                guard transaction.environment == environment.rawValue else {
                    return outcome.attempt(
                        .reject(
                            reason: "\(environment.rawValue) history holds a \(transaction.environment) transaction"
                        )
                    )
                }
                guard bundleID == nil || bundleID == transaction.bundleID else {
                    return outcome.attempt(
                        .reject(reason: "history mixes bundles \(bundleID!) and \(transaction.bundleID)")
                    )
                }
                bundleID = transaction.bundleID
                // A transaction repeated across pages is still one purchase.
                if let position = positions[transaction.transactionID] {
                    purchases[position].merge(transaction.purchase)
                } else {
                    positions[transaction.transactionID] = purchases.count
                    purchases.append(transaction.purchase)
                }
            }
            guard page.hasMore else {
                return outcome.attempt(
                    .verified(
                        VerifiedPurchases(
                            purchases: purchases,
                            environment: environment,
                            bundleID: bundleID ?? page.bundleId ?? fallbackBundleID
                        )
                    )
                )
            }
            guard let revision = page.revision, !revision.isEmpty else {
                return outcome.attempt(
                    .retry(
                        TransientFailure(errorClass: .garbled, reason: "\(outcome.label): hasMore without a revision")
                    )
                )
            }
            guard pages < Self.historyPageLimit else {
                return outcome.attempt(
                    .retry(
                        TransientFailure(
                            errorClass: .garbled,
                            reason: "\(outcome.label): history of \(id) has more than \(Self.historyPageLimit) pages"
                        )
                    )
                )
            }
            pages += 1
            outcome = await request(environment, path: Self.historyPath(id, revision: revision))
        }
    }

    /// `/inApps/v2/history/{id}`, oldest first, from `revision` on when given.
    private static func historyPath(_ id: String, revision: String?) -> String {
        "/inApps/v2/history/" + pathSegment(id) + "?sort=ASCENDING"
            + (revision.map { "&revision=" + pathSegment($0) } ?? "")
    }

    /// `text` safe in a path segment or a query value: ids come from receipts nobody signed, revisions are opaque.
    private static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// Asks production, then the sandbox when production answers that it does not know `id`.
    private func inEitherEnvironment(_ id: String, _ ask: (AppleEnvironment) async -> Outcome) async -> Outcome {
        let production = await ask(.production)
        guard production.isNotFound else { return production }
        var sandbox = await ask(.sandbox)
        if sandbox.isNotFound {
            sandbox.answer = .verdict(
                .reject(reason: "transaction \(id) not found in production or sandbox (errorCode 4040010)")
            )
        }
        return sandbox
    }

    /// What one request came to.
    private enum Answer {
        /// HTTP 200 with this body, for the endpoint to read.
        case found(Data)
        case verdict(Verdict)
    }

    private struct Outcome {
        var answer: Answer
        var environment: AppleEnvironment?
        var storeStatus: Int?
        var httpStatus: Int?
        var calledStore = true

        /// "App Store Server API (Production)", for reasons.
        var label: String { "App Store Server API (\(environment?.rawValue ?? "no environment"))" }

        /// Apple's "Transaction id not found" in this environment.
        var isNotFound: Bool {
            if case .verdict = answer { return storeStatus == ServerAPIClient.transactionIDNotFound }
            return false
        }

        /// The attempt with `verdict`, or with the request's own verdict when none is given.
        func attempt(_ verdict: Verdict? = nil) -> VerificationAttempt {
            let decided: Verdict
            switch (verdict, answer) {
            case (let verdict?, _): decided = verdict
            case (nil, .verdict(let own)): decided = own
            case (nil, .found):
                decided = .retry(TransientFailure(errorClass: .garbled, reason: "\(label): answer not read"))
            }
            return VerificationAttempt(
                verdict: decided,
                environment: environment,
                storeStatus: storeStatus,
                httpStatus: httpStatus,
                calledStore: calledStore
            )
        }
    }

    private struct TransactionInfoAnswer: Decodable {
        var signedTransactionInfo: String
    }

    /// Get Transaction History v2's page (`HistoryResponse`).
    private struct HistoryAnswer: Decodable {
        var revision: String?
        var hasMore: Bool
        var bundleId: String?
        var signedTransactions: [String]
    }

    /// One paced, authenticated `GET {base}{path}`, its answer classified: a 200's body, or the verdict an error earns.
    private func request(_ environment: AppleEnvironment, path: String) async -> Outcome {
        do {
            let (granted, wait) = try await pacing.reserve()
            guard granted else {
                return Outcome(
                    answer: .verdict(
                        .postpone(seconds: wait.seconds, reason: "waiting for an App Store Server API slot")
                    ),
                    calledStore: false
                )
            }
            if wait > .zero { try await Task.sleep(for: wait) }
        } catch is CancellationError {
            return Outcome(
                answer: .verdict(.retry(TransientFailure(errorClass: .transport, reason: "cancelled"))),
                calledStore: false
            )
        } catch {
            return Outcome(
                answer: .verdict(.retry(TransientFailure(errorClass: .recording, reason: "pacing: \(error)"))),
                calledStore: false
            )
        }
        let base = environment == .production ? configuration.productionURL : configuration.sandboxURL
        var request = HTTPClientRequest(url: base + path)
        do {
            request.headers.add(
                name: "Authorization",
                value: "Bearer " + (try configuration.credentials.bearerToken(bundleID: configuration.bundleID))
            )
        } catch {
            return Outcome(
                answer: .verdict(
                    .retry(TransientFailure(errorClass: .credentials, reason: "cannot sign the bearer token"))
                )
            )
        }
        var outcome = Outcome(answer: .verdict(.reject(reason: "unanswered")), environment: environment)
        let label = outcome.label
        do {
            let response = try await client.execute(request, timeout: .init(configuration.requestTimeout))
            let body = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
            let status = Int(response.status.code)
            outcome.httpStatus = status
            guard status != 200 else {
                outcome.answer = .found(body)
                return outcome
            }
            let fields = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
            let errorCode = FlexibleJSON.integer(fields?["errorCode"]).map(Int.init)
            outcome.storeStatus = errorCode
            let message: String = (fields?["errorMessage"] as? String).map { " (\($0.prefix(200)))" } ?? ""
            let code: String = errorCode.map { " errorCode \($0)" } ?? ""
            let described = "\(label): HTTP \(status)\(code)\(message)"
            switch (status, errorCode) {
            case (429, _), (_, Self.rateLimitExceeded?):
                let until = response.headers.first(name: "Retry-After").flatMap(Self.retryAfterDate) ?? Date() + 1
                try? await pacing.block(until: until)
                outcome.answer = .verdict(
                    .retry(
                        TransientFailure(
                            errorClass: .http,
                            reason: described,
                            notBefore: max(0, until.timeIntervalSinceNow)
                        )
                    )
                )
            case (401, _):
                let first = reportedUnauthorized.withLock { reported in
                    defer { reported = true }
                    return !reported
                }
                if first {
                    logger.critical(
                        "the App Store Server API refused our credentials (HTTP 401): check APPLE_ISSUER_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_FILE and APPLE_BUNDLE_ID; jobs keep retrying"
                    )
                }
                outcome.answer = .verdict(
                    .retry(TransientFailure(errorClass: .credentials, reason: described + ": credentials refused"))
                )
            case (_, let code?) where Self.retryableErrorCodes.contains(code):
                outcome.answer = .verdict(.retry(TransientFailure(errorClass: .appleStatus, reason: described)))
            case (500..., _), (_, nil):
                // An error without Apple's JSON (a proxy's page, a wrong URL) says nothing about the transaction:
                // retried, so a misconfiguration never turns orders invalid.
                outcome.answer = .verdict(.retry(TransientFailure(errorClass: .http, reason: described)))
            default:
                // Including 4040010, which `inEitherEnvironment` turns into a question to the sandbox.
                outcome.answer = .verdict(.reject(reason: described))
            }
            return outcome
        } catch is NIOTooManyBytesError {
            outcome.answer = .verdict(
                .retry(TransientFailure(errorClass: .transport, reason: "\(label): answer over 1 MiB"))
            )
            return outcome
        } catch {
            outcome.answer = .verdict(.retry(TransientFailure(errorClass: .transport, reason: "\(label): \(error)")))
            return outcome
        }
    }

    /// Apple's `Retry-After` here is a UNIX time in milliseconds; a small number is taken as seconds to wait.
    static func retryAfterDate(_ value: String) -> Date? {
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number >= 0 else { return nil }
        let longest = Date() + ServerAPIPacing.longestBlock
        return number > 1e11
            ? min(Date(timeIntervalSince1970: number / 1000), longest)
            : Date() + min(number, ServerAPIPacing.longestBlock)
    }
}
