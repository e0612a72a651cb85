import Foundation
import Testing

@testable import ReceiptdCore

/// App Store Server API answers sorted into a body to read or a verdict, without I/O.
@Suite struct ServerAPIClassifierTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func judge(
        _ status: Int,
        _ body: String = "",
        retryAfter: String? = nil,
        environment: StoreEnvironment = .production
    ) -> ServerAPIClassifier.Judgement {
        ServerAPIClassifier.classify(
            status: status,
            body: Data(body.utf8),
            retryAfter: retryAfter,
            environment: environment,
            now: now
        )
    }

    private func verdict(_ judgement: ServerAPIClassifier.Judgement) -> Verdict? {
        if case .verdict(let verdict) = judgement.outcome.answer { return verdict }
        return nil
    }

    @Test func aTwoHundredIsABodyToRead() {
        let judgement = judge(200, #"{"signedTransactionInfo":"x"}"#)
        guard case .found(let body) = judgement.outcome.answer else {
            Issue.record("expected a body")
            return
        }
        #expect(String(decoding: body, as: UTF8.self).contains("signedTransactionInfo"))
        #expect(judgement.outcome.httpStatus == 200 && judgement.blockUntil == nil)
    }

    @Test func notFoundIsRejectedAndAskedOfTheSandbox() {
        let judgement = judge(404, #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#)
        #expect(judgement.outcome.isNotFound && judgement.outcome.storeStatus == 4_040_010)
        guard case .reject(let reason) = verdict(judgement) else {
            Issue.record("expected reject")
            return
        }
        #expect(reason == "App Store Server API (Production): HTTP 404 errorCode 4040010 (Transaction id not found.)")
    }

    @Test func temporaryCodesUnreadableErrorsAndRefusedCredentialsAreRetried() {
        for (status, body, errorClass) in [
            (404, #"{"errorCode":4040004}"#, ErrorClass.appleStatus), (500, #"{"errorCode":5000001}"#, .appleStatus),
            (502, "<html>bad gateway</html>", .http), (404, "not json", .http), (401, "", .credentials),
        ] {
            guard case .retry(let failure) = verdict(judge(status, body)) else {
                Issue.record("HTTP \(status) \(body) should retry")
                continue
            }
            #expect(failure.errorClass == errorClass, "HTTP \(status) \(body)")
        }
        #expect(!judge(404, #"{"errorCode":4040004}"#).outcome.isNotFound)
        guard case .reject = verdict(judge(400, #"{"errorCode":4000006}"#)) else {
            Issue.record("an invalid transaction id should reject")
            return
        }
    }

    @Test func aRateLimitBlocksUntilRetryAfterAtMostAnHourAhead() {
        let until = now + 2.5
        let limited = judge(
            429,
            #"{"errorCode":4290000}"#,
            retryAfter: String(Int64(until.timeIntervalSince1970 * 1000))
        )
        #expect(limited.blockUntil == until)
        guard case .retry(let failure) = verdict(limited) else {
            Issue.record("expected retry")
            return
        }
        #expect(failure.notBefore == .seconds(2.5) && failure.errorClass == .http)
        // Centuries ahead, or a bare number of seconds, or nothing readable.
        #expect(judge(429, retryAfter: "99999999999999").blockUntil == now + ServerAPIPacing.longestBlock.seconds)
        #expect(judge(429, retryAfter: "30").blockUntil == now + 30)
        #expect(judge(429, retryAfter: "soon").blockUntil == now + 1)
        #expect(judge(503, #"{"errorCode":4290000}"#).blockUntil == now + 1)
    }
}
