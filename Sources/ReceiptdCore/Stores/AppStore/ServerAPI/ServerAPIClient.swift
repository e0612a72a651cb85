import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// The App Store Server API's transport: every request paced through the database by its endpoint
/// (`ServerAPIPacing`), signed with a fresh bearer token, sent, and its answer judged by `ServerAPIClassifier`. The
/// endpoints that read the answers are `TransactionVerifier.lookup` and `ReceiptHistoryVerifier.history`.
final class ServerAPIClient: Sendable {
    /// Endpoints, credentials and limits.
    struct Configuration: Sendable {
        /// `APPLE_SERVER_API_URL`.
        var productionURL: String
        /// `APPLE_SERVER_API_SANDBOX_URL`.
        var sandboxURL: String
        /// The App Store Connect key requests are signed with.
        var credentials: ServerAPICredentials
        /// The app the tokens are for (`APPLE_BUNDLE_ID`).
        var bundleID: String
        /// Deadline for one request.
        var requestTimeout: Duration
    }

    let configuration: Configuration
    let client: HTTPClient
    let pacing: ServerAPIPacing
    let logger: Logger
    /// Set once a 401 was logged loudly, so a wrong key does not flood the log.
    let reportedUnauthorized: Mutex<Bool>

    init(configuration: Configuration, client: HTTPClient, pacing: ServerAPIPacing, logger: Logger) {
        self.configuration = configuration
        self.client = client
        self.pacing = pacing
        self.logger = logger
        reportedUnauthorized = Mutex(false)
    }

    /// History pages read in one attempt at most (Apple sends up to 20 transactions a page); a longer history
    /// is retried, in case a page was repeated, and fails once the job's attempts run out.
    static let historyPageLimit = 100

    /// `/inApps/v1/transactions/{id}`: Get Transaction Info.
    static func transactionPath(_ id: String) -> String {
        "/inApps/v1/transactions/" + pathSegment(id)
    }

    /// `/inApps/v2/history/{id}`, oldest first, from `revision` on when given: Get Transaction History v2.
    static func historyPath(_ id: String, revision: String?) -> String {
        "/inApps/v2/history/" + pathSegment(id) + "?sort=ASCENDING"
            + (revision.map { "&revision=" + pathSegment($0) } ?? "")
    }

    /// `text` safe in a path segment or a query value: ids come from receipts nobody signed, revisions are opaque.
    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// Asks `endpoint` in production, then in the sandbox when production answers that it does not know `id`.
    func inEitherEnvironment(_ id: String, _ endpoint: AppStoreServerEndpoint, path: String) async -> ServerAPIOutcome {
        let production = await get(.production, endpoint, path: path)
        guard production.isNotFound else { return production }
        var sandbox = await get(.sandbox, endpoint, path: path)
        if sandbox.isNotFound {
            sandbox.answer = .verdict(
                .reject(reason: "transaction \(id) not found in production or sandbox (errorCode 4040010)")
            )
        }
        return sandbox
    }

    /// One authenticated `GET {base}{path}` to `endpoint`, paced by it, its answer judged: a 200's body, or the
    /// verdict an error earns.
    func get(
        _ environment: StoreEnvironment,
        _ endpoint: AppStoreServerEndpoint,
        path: String
    ) async -> ServerAPIOutcome {
        await send(environment, endpoint, method: .GET, path: path)
    }

    /// One authenticated request `method {base}{path}` to `endpoint` with a JSON `body`, paced by that endpoint, its
    /// answer judged: the body of an answer with status `success`, or the verdict an error earns. A 429 from
    /// production blocks `endpoint` alone.
    func send(
        _ environment: StoreEnvironment,
        _ endpoint: AppStoreServerEndpoint,
        method: HTTPMethod,
        path: String,
        body: Data? = nil,
        success: Int = 200
    ) async -> ServerAPIOutcome {
        do {
            let (granted, wait) = try await pacing.reserve(endpoint, in: environment)
            guard granted else {
                return .notSent(.postpone(after: wait, reason: "waiting for a slot of \(endpoint.rawValue)"))
            }
            if wait > .zero { try await Task.sleep(for: wait) }
        } catch is CancellationError {
            return .notSent(.retry(TransientFailure(errorClass: .transport, reason: "cancelled")))
        } catch {
            return .notSent(.retry(TransientFailure(errorClass: .recording, reason: "pacing: \(error)")))
        }
        let base = environment == .production ? configuration.productionURL : configuration.sandboxURL
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            request.headers.add(
                name: "Authorization",
                value: "Bearer " + (try configuration.credentials.bearerToken(bundleID: configuration.bundleID))
            )
        } catch {
            return ServerAPIOutcome(
                answer: .verdict(
                    .retry(TransientFailure(errorClass: .credentials, reason: "cannot sign the bearer token"))
                )
            )
        }
        let label = ServerAPIOutcome(answer: .found(Data()), environment: environment).label
        let judgement: ServerAPIClassifier.Judgement
        do {
            let response = try await client.execute(request, timeout: .init(configuration.requestTimeout))
            let body = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
            judgement = ServerAPIClassifier.classify(
                status: Int(response.status.code),
                body: body,
                retryAfter: response.headers.first(name: "Retry-After"),
                environment: environment,
                success: success
            )
        } catch is NIOTooManyBytesError {
            return failed(environment, "\(label): answer over 1 MiB")
        } catch {
            var outcome = failed(environment, "\(label): \(error)")
            outcome.unanswered = StoreCallFailure.mayHaveReachedStore(error)
            return outcome
        }
        // The sandbox's limits are Apple's apart from production's: its 429 parks only the call that got it (the
        // outcome's `notBefore`), so that production never waits on the sandbox.
        if let until = judgement.blockUntil, environment == .production {
            try? await pacing.block(endpoint, until: until)
        }
        if judgement.outcome.httpStatus == 401,
            reportedUnauthorized.withLock({ reported in
                defer { reported = true }
                return !reported
            })
        {
            logger.critical(
                "the App Store Server API refused our credentials (HTTP 401): check APPLE_ISSUER_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_FILE and APPLE_BUNDLE_ID; jobs keep retrying"
            )
        }
        return judgement.outcome
    }

    /// A request sent that got no answer.
    private func failed(_ environment: StoreEnvironment, _ reason: String) -> ServerAPIOutcome {
        ServerAPIOutcome(
            answer: .verdict(.retry(TransientFailure(errorClass: .transport, reason: reason))),
            environment: environment
        )
    }
}
