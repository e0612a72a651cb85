import Foundation

/// Sorts one App Store Server API answer into a 200's body or a verdict: a pure function of the HTTP status,
/// the body and `Retry-After`, tested without I/O. Reading a 200's body is the endpoint's (`lookup`, `history`).
enum ServerAPIClassifier {
    /// Error codes Apple documents as temporary: account not found (retryable), app not found (retryable),
    /// original transaction id not found (retryable), general internal error (retryable).
    static let retryableErrorCodes: Set<Int> = [4_040_002, 4_040_004, 4_040_006, 5_000_001]
    /// The transaction id is not in this environment.
    static let transactionIDNotFound = 4_040_010
    /// Too many requests: `Retry-After` says when to come back.
    static let rateLimitExceeded = 4_290_000

    /// One judged answer: the outcome, and until when every daemon must hold its requests (a 429).
    struct Judgement: Sendable {
        /// The outcome.
        var outcome: ServerAPIOutcome
        /// Set for a 429: when the API may be called again, at most `ServerAPIPacing.longestBlock` ahead.
        var blockUntil: Date?
    }

    /// Judges an answer with HTTP `status` and `body` from `environment`; `retryAfter` is its header, `now` the time
    /// it came. `success` is the endpoint's status of success (200; Send Consumption Information's is 202).
    static func classify(
        status: Int,
        body: Data,
        retryAfter: String?,
        environment: StoreEnvironment,
        success: Int = 200,
        now: Date = Date()
    ) -> Judgement {
        var outcome = ServerAPIOutcome(answer: .found(body), environment: environment, httpStatus: status)
        guard status != success else { return Judgement(outcome: outcome) }
        let fields = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        let errorCode = FlexibleJSON.integer(fields?["errorCode"]).map(Int.init)
        outcome.storeStatus = errorCode
        let message: String = (fields?["errorMessage"] as? String).map { " (\($0.prefix(200)))" } ?? ""
        let code: String = errorCode.map { " errorCode \($0)" } ?? ""
        let described = "\(outcome.label): HTTP \(status)\(code)\(message)"
        var blockUntil: Date?
        let verdict: Verdict
        switch (status, errorCode) {
        case (429, _), (_, rateLimitExceeded?):
            let until = retryAfter.flatMap { retryAfterDate($0, now: now) } ?? now + 1
            blockUntil = until
            verdict = .retry(
                TransientFailure(
                    errorClass: .http,
                    reason: described,
                    notBefore: .seconds(max(0, until.timeIntervalSince(now)))
                )
            )
        case (401, _):
            verdict = .retry(TransientFailure(errorClass: .credentials, reason: described + ": credentials refused"))
        case (_, let code?) where retryableErrorCodes.contains(code):
            verdict = .retry(TransientFailure(errorClass: .appleStatus, reason: described))
        case (500..., _), (_, nil):
            // An error without Apple's JSON (a proxy's page, a wrong URL) says nothing about the transaction:
            // retried, so a misconfiguration never turns orders invalid.
            verdict = .retry(TransientFailure(errorClass: .http, reason: described))
        default:
            // Including 4040010, which `ServerAPIClient.inEitherEnvironment` turns into a question to the sandbox.
            verdict = .reject(reason: described)
        }
        outcome.answer = .verdict(verdict)
        return Judgement(outcome: outcome, blockUntil: blockUntil)
    }

    /// Apple's `Retry-After` here is a UNIX time in milliseconds; a small number is taken as seconds to wait. Never
    /// further than `ServerAPIPacing.longestBlock` from `now`.
    static func retryAfterDate(_ value: String, now: Date = Date()) -> Date? {
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number >= 0 else { return nil }
        let longest = now + ServerAPIPacing.longestBlock.seconds
        return number > 1e11
            ? min(Date(timeIntervalSince1970: number / 1000), longest)
            : now + min(number, ServerAPIPacing.longestBlock.seconds)
    }
}
