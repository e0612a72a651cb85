import Foundation
import Testing

@testable import ReceiptdCore

/// `purchases.products.get` answers as Google writes them, decoded and sorted into verdicts without I/O.
@Suite struct GooglePlayClassifierTests {
    private let lookup = GooglePlayClassifier.Lookup(token: "tok-1", productID: "gems", waited: .seconds(30))

    private var configuration: GooglePlayConfiguration {
        var configuration = GooglePlayConfiguration()
        configuration.packageName = "com.example.game"
        configuration.finalizeOverdue = .seconds(120)
        return configuration
    }

    private func decode(_ json: String) -> GoogleProductPurchase? {
        try? JSONDecoder().decode(GoogleProductPurchase.self, from: Data(json.utf8))
    }

    private func classify(
        _ json: String,
        status: Int = 200,
        configuration: GooglePlayConfiguration? = nil
    ) -> VerificationAttempt {
        GooglePlayClassifier.classify(
            status: status,
            purchase: decode(json),
            lookup: lookup,
            configuration: configuration ?? self.configuration
        )
    }

    @Test func aPurchasedAnswerDecodesWithGooglesStringNumbers() throws {
        let purchase = try #require(
            decode(
                """
                {"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"1700000000000","purchaseState":0,
                 "consumptionState":0,"orderId":"GPA.1234","acknowledgementState":1,"quantity":2,
                 "obfuscatedExternalAccountId":"acct-7","regionCode":"US"}
                """
            )
        )
        #expect(purchase.purchaseState == .purchased && purchase.purchaseType == nil)
        #expect(purchase.acknowledgementState == .acknowledged && purchase.consumptionState == .pending)
        #expect(purchase.quantity == 2 && purchase.purchaseTimeMilliseconds == 1_700_000_000_000)
        #expect(purchase.accountID == "acct-7" && purchase.ledgerID(token: "t") == "GPA.1234")
        #expect(purchase.environment == .production)
    }

    @Test func oddFieldsPayNothingRatherThanMakeTheAnswerUnreadable() throws {
        let purchase = try #require(
            decode(#"{"purchaseState":"1","quantity":"0","purchaseTimeMillis":"soon","purchaseType":0,"orderId":""}"#)
        )
        #expect(purchase.purchaseState == .cancelled && purchase.purchaseType == .test)
        #expect(purchase.quantity == nil && purchase.purchaseTimeMilliseconds == nil)
        #expect(purchase.environment == .sandbox)
        // A test purchase has no orderId: its ledger id is the token's SHA-256.
        #expect(purchase.ledgerID(token: "abc").count == 64)
        #expect(decode(#"{"purchaseState":0}"#)?.quantity == 1)
        #expect(decode(#"{"purchaseState":7}"#)?.purchaseState == .unknown(7))
        #expect(decode(#"{"orderId":"GPA.1"}"#) == nil)
    }

    @Test func aPurchasedPurchaseIsVerifiedAndOwesItsAcknowledgement() throws {
        let attempt = classify(#"{"purchaseState":0,"orderId":"GPA.9","acknowledgementState":0,"quantity":1}"#)
        guard case .verified(let verified) = attempt.verdict else {
            Issue.record("expected verified, got \(attempt.verdict)")
            return
        }
        #expect(verified.store == .google && verified.bundleID == "com.example.game")
        #expect(verified.purchases.map(\.transactionID) == ["GPA.9"])
        #expect(verified.purchases.first?.isCancelled == false && verified.purchases.first?.productID == "gems")
        #expect(
            verified.finalization
                == GoogleFinalization(
                    purchaseToken: "tok-1",
                    productID: "gems",
                    action: .acknowledge,
                    overdue: .seconds(120)
                )
        )
        #expect(attempt.storeStatus == 0 && attempt.httpStatus == 200 && attempt.environment == .production)
    }

    @Test func nothingIsOwedWhenGoogleAlreadyHasTheCallOrForACancelledPurchase() {
        let acknowledged = classify(#"{"purchaseState":0,"orderId":"GPA.9","acknowledgementState":1}"#)
        if case .verified(let verified) = acknowledged.verdict {
            #expect(verified.finalization?.done == [.acknowledge])
            #expect(verified.finalization?.owed(for: nil) == nil)
            #expect(verified.finalization?.owed(for: .nonConsumable) == nil)
            // Acknowledged by the app but not consumed: a consumable still owes its consumption.
            #expect(verified.finalization?.owed(for: .consumable)?.action == .consume)
        } else {
            Issue.record("expected verified")
        }
        var consuming = configuration
        consuming.finalize = .consume
        let unconsumed = classify(
            #"{"purchaseState":0,"acknowledgementState":1,"consumptionState":0}"#,
            configuration: consuming
        )
        if case .verified(let verified) = unconsumed.verdict {
            #expect(verified.finalization?.owed(for: nil)?.action == .consume)
            // The catalogue's kind overrides GOOGLE_PLAY_FINALIZE: a non-consumable is only acknowledged, which
            // Google already has.
            #expect(verified.finalization?.owed(for: .nonConsumable) == nil)
        } else {
            Issue.record("expected verified")
        }
        let cancelled = classify(#"{"purchaseState":1,"orderId":"GPA.9","acknowledgementState":0}"#)
        if case .verified(let verified) = cancelled.verdict {
            #expect(verified.finalization == nil && verified.purchases.first?.isCancelled == true)
        } else {
            Issue.record("expected verified")
        }
    }

    @Test func aPendingPurchaseWaitsWithoutAnAttempt() {
        let attempt = classify(#"{"purchaseState":2,"purchaseType":0}"#)
        guard case .postpone(let wait, let reason) = attempt.verdict else {
            Issue.record("expected postpone, got \(attempt.verdict)")
            return
        }
        #expect(wait == .seconds(60) && reason.contains("pending at Google"))
        #expect(attempt.storeStatus == 2 && attempt.environment == .sandbox)
    }

    @Test func errorsAreRejectedOrRetriedByStatus() {
        func verdict(_ status: Int, retryAfter: Duration? = nil) -> Verdict {
            GooglePlayClassifier.classify(
                status: status,
                purchase: nil,
                errorMessage: "why",
                retryAfter: retryAfter,
                lookup: lookup,
                configuration: configuration
            ).verdict
        }
        for status in [400, 404, 410] {
            guard case .reject(let reason) = verdict(status) else {
                Issue.record("HTTP \(status) should reject")
                continue
            }
            #expect(reason.hasPrefix("Google Play: HTTP \(status) (why)"))
        }
        for status in [401, 403] {
            guard case .retry(let failure) = verdict(status) else {
                Issue.record("HTTP \(status) should retry")
                continue
            }
            #expect(failure.errorClass == .credentials)
        }
        guard case .retry(let limited) = verdict(429, retryAfter: .seconds(7)) else {
            Issue.record("HTTP 429 should retry")
            return
        }
        #expect(limited.errorClass == .http && limited.notBefore == .seconds(7))
        // A 200 whose body could not be read.
        guard case .retry(let garbled) = verdict(200) else {
            Issue.record("an unreadable 200 should retry")
            return
        }
        #expect(garbled.errorClass == .garbled)
    }

    @Test func aVoidedPageDecodesLeniently() throws {
        let page = try JSONDecoder().decode(
            GoogleVoidedPurchasesPage.self,
            from: Data(
                """
                {"voidedPurchases":[
                  {"purchaseToken":"t1","orderId":"GPA.1","voidedTimeMillis":"1700000000000","voidedReason":7},
                  {"orderId":"no token"},
                  {"purchaseToken":"t2","voidedTimeMillis":1700000000001}],
                 "tokenPagination":{"nextPageToken":"next"}}
                """.utf8
            )
        )
        #expect(page.entries.map(\.purchaseToken) == ["t1", "t2"])
        #expect(page.entries.first?.ledgerID == "GPA.1" && page.entries.first?.voidedReason == 7)
        #expect(page.entries.last?.voidedTimeMilliseconds == 1_700_000_000_001)
        #expect(page.entries.last?.ledgerID == GoogleLedgerID.of(orderID: nil, token: "t2"))
        #expect(page.nextPageToken == "next")
        let last = try JSONDecoder().decode(GoogleVoidedPurchasesPage.self, from: Data("{}".utf8))
        #expect(last.entries.isEmpty && last.nextPageToken == nil)
    }

    @Test func retryAfterReadsSecondsOrAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryAfter.delay(from: " 7 ", now: now) == .seconds(7))
        #expect(RetryAfter.delay(from: "-3", now: now) == .zero)
        #expect(RetryAfter.delay(from: "Tue, 14 Nov 2023 22:13:40 GMT", now: now) == .seconds(20))
        #expect(RetryAfter.delay(from: "later", now: now) == nil)
    }
}
