import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Synchronization

/// Looks transactions up with the App Store Server API (`GET /inApps/v1/transactions/{id}`): production first,
/// the sandbox when production does not know the id, every request paced through the database.
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

    init(configuration: Configuration, client: HTTPClient, pacing: ServerAPIPacing, signed: SignedTransactionVerifier, logger: Logger) {
        self.configuration = configuration
        self.client = client
        self.pacing = pacing
        self.signed = signed
        self.logger = logger
        reportedUnauthorized = Mutex(false)
    }

    /// Error codes Apple documents as temporary: account not found (retryable), app not found (retryable),
    /// original transaction id not found (retryable), general internal error (retryable).
    static let retryableErrorCodes: Set<Int> = [4040002, 4040004, 4040006, 5000001]
    /// The transaction id is not in this environment.
    static let transactionIDNotFound = 4040010
    static let rateLimitExceeded = 4290000

    /// One lookup of transaction `id`: at most one request per environment.
    func lookup(_ id: String) async -> VerificationAttempt {
        var outcome = await call(.production, id: id)
        if case .notFound = outcome.answer {
            outcome = await call(.sandbox, id: id)
            if case .notFound = outcome.answer {
                return outcome.attempt(.reject(reason: "transaction \(id) not found in production or sandbox (errorCode 4040010)"))
            }
        }
        return await outcome.judge(self)
    }

    /// What one request came to.
    private enum Answer {
        case signedTransaction(String)
        case notFound
        case verdict(Verdict)
    }

    private struct Outcome {
        var answer: Answer
        var environment: AppleEnvironment?
        var storeStatus: Int?
        var httpStatus: Int?
        var calledStore = true

        func attempt(_ verdict: Verdict) -> VerificationAttempt {
            VerificationAttempt(verdict: verdict, environment: environment, storeStatus: storeStatus, httpStatus: httpStatus,
                                calledStore: calledStore)
        }

        func judge(_ client: ServerAPIClient) async -> VerificationAttempt {
            switch answer {
            case .verdict(let verdict):
                return attempt(verdict)
            case .notFound:
                return attempt(.reject(reason: "transaction not found"))
            case .signedTransaction(let jws):
                do {
                    let transaction = try await client.signed.verify(jws)
                    return attempt(TransactionVerifier.verdict(for: transaction))
                } catch {
                    return attempt(.reject(reason: "Server API answer: \(error)"))
                }
            }
        }
    }

    private func call(_ environment: AppleEnvironment, id: String) async -> Outcome {
        do {
            let (granted, wait) = try await pacing.reserve()
            guard granted else {
                return Outcome(answer: .verdict(.postpone(seconds: wait.seconds, reason: "waiting for an App Store Server API slot")),
                               calledStore: false)
            }
            if wait > .zero { try await Task.sleep(for: wait) }
        } catch is CancellationError {
            return Outcome(answer: .verdict(.retry(TransientFailure(errorClass: .transport, reason: "cancelled"))), calledStore: false)
        } catch {
            return Outcome(answer: .verdict(.retry(TransientFailure(errorClass: .recording, reason: "pacing: \(error)"))), calledStore: false)
        }
        let base = environment == .production ? configuration.productionURL : configuration.sandboxURL
        var request = HTTPClientRequest(url: base + "/inApps/v1/transactions/" + id)
        do {
            request.headers.add(name: "Authorization", value: "Bearer " + (try configuration.credentials.bearerToken(bundleID: configuration.bundleID)))
        } catch {
            return Outcome(answer: .verdict(.retry(TransientFailure(errorClass: .credentials, reason: "cannot sign the bearer token"))))
        }
        let label = "App Store Server API (\(environment.rawValue))"
        do {
            let response = try await client.execute(request, timeout: .init(configuration.requestTimeout))
            let body = try await response.body.collect(upTo: 1 << 20)
            let status = Int(response.status.code)
            let fields = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
            let errorCode = FlexibleJSON.integer(fields?["errorCode"]).map(Int.init)
            var outcome = Outcome(answer: .notFound, environment: environment, storeStatus: errorCode, httpStatus: status)
            let message: String = (fields?["errorMessage"] as? String).map { " (\($0.prefix(200)))" } ?? ""
            let code: String = errorCode.map { " errorCode \($0)" } ?? ""
            let described = "\(label): HTTP \(status)\(code)\(message)"
            switch (status, errorCode) {
            case (200, _):
                guard let jws = fields?["signedTransactionInfo"] as? String else {
                    outcome.answer = .verdict(.retry(TransientFailure(errorClass: .garbled, reason: "\(label): 200 without signedTransactionInfo")))
                    return outcome
                }
                outcome.answer = .signedTransaction(jws)
            case (_, Self.transactionIDNotFound?):
                outcome.answer = .notFound
            case (429, _), (_, Self.rateLimitExceeded?):
                let until = response.headers.first(name: "Retry-After").flatMap(Self.retryAfterDate) ?? Date() + 1
                try? await pacing.block(until: until)
                outcome.answer = .verdict(.retry(TransientFailure(
                    errorClass: .http, reason: described, notBefore: max(0, until.timeIntervalSinceNow))))
            case (401, _):
                let first = reportedUnauthorized.withLock { reported in
                    defer { reported = true }
                    return !reported
                }
                if first {
                    logger.critical("the App Store Server API refused our credentials (HTTP 401): check APPLE_ISSUER_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_FILE and APPLE_BUNDLE_ID; jobs keep retrying")
                }
                outcome.answer = .verdict(.retry(TransientFailure(errorClass: .credentials, reason: described + ": credentials refused")))
            case (_, let code?) where Self.retryableErrorCodes.contains(code):
                outcome.answer = .verdict(.retry(TransientFailure(errorClass: .appleStatus, reason: described)))
            case (500..., _):
                outcome.answer = .verdict(.retry(TransientFailure(errorClass: .http, reason: described)))
            default:
                outcome.answer = .verdict(.reject(reason: described))
            }
            return outcome
        } catch is NIOTooManyBytesError {
            return Outcome(answer: .verdict(.retry(TransientFailure(errorClass: .transport, reason: "\(label): answer over 1 MiB"))),
                           environment: environment)
        } catch {
            return Outcome(answer: .verdict(.retry(TransientFailure(errorClass: .transport, reason: "\(label): \(error)"))),
                           environment: environment)
        }
    }

    /// Apple's `Retry-After` here is a UNIX time in milliseconds; a small number is taken as seconds to wait.
    static func retryAfterDate(_ value: String) -> Date? {
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number >= 0 else { return nil }
        return number > 1e11 ? Date(timeIntervalSince1970: number / 1000) : Date() + min(number, 3600)
    }
}
