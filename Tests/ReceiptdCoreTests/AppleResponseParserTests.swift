import Foundation
import Testing

@testable import ReceiptdCore

@Suite struct AppleResponseParserTests {
    private func parse(_ text: String) throws(AppleResponseParser.Failure) -> AppleVerifyResponse {
        try AppleResponseParser.parse(Array(text.utf8))
    }

    @Test func readsStringsAndNumbersAlike() throws {
        let response = try parse(
            """
            {"status":0,"environment":"Sandbox","is-retryable":"false","receipt":{"bundle_id":"b","in_app":[
              {"transaction_id":"1000000001","product_id":"p","quantity":"2","purchase_date_ms":"1700000000000"},
              {"transaction_id":1000000002,"product_id":"p","quantity":1,"purchase_date_ms":1700000000001,"cancellation_date_ms":"1"},
              {"transaction_id":"3","product_id":"p","purchase_date_ms":"1700000000002","cancellation_date":""}
            ]}}
            """
        )
        #expect(response.status == 0)
        #expect(response.environment == "Sandbox")
        #expect(response.isRetryable == false)
        let entries = response.receipt?.inApp ?? []
        #expect(entries.map(\.transactionID) == ["1000000001", "1000000002", "3"])
        #expect(entries.map(\.quantity) == [2, 1, 1])
        #expect(entries.map(\.purchaseDateMilliseconds) == [1_700_000_000_000, 1_700_000_000_001, 1_700_000_000_002])
        #expect(entries.map(\.isCancelled) == [false, true, false])
    }

    @Test func statusAsStringAndRetryFlag() throws {
        let response = try parse(#"{"status":"21100","is_retryable":true}"#)
        #expect(response.status == 21100)
        #expect(response.isRetryable == true)
        #expect(response.receipt == nil)
    }

    @Test func badQuantityIsKeptAsUnreadable() throws {
        let response = try parse(
            #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","product_id":"p","quantity":"zero"}]}}"#
        )
        #expect(response.receipt?.inApp?.first?.quantity == nil)
    }

    @Test(arguments: [
        "<html>Service Unavailable</html>", "", "[1,2]", #"{"environment":"Production"}"#, #"{"status":true}"#,
        #"{"status":1.5}"#,
    ])
    func garbledBodiesAreRejected(body: String) {
        #expect(throws: AppleResponseParser.Failure.self) { try parse(body) }
    }

    @Test func invalidUTF8IsRejected() {
        #expect(throws: AppleResponseParser.Failure.self) { try AppleResponseParser.parse([0x7B, 0xFF, 0xFE, 0x7D]) }
    }

    /// Property: no byte string makes the parser crash; it either parses or throws. Seeded, bounded.
    @Test func randomBytesNeverCrash() {
        var generator = SeededGenerator(seed: 7)
        let fragments = Array(#"{"status":0,"receipt":{"in_app":[{"transaction_id":1}]}}[],:"\ "#.utf8)
        for _ in 0..<3_000 {
            let count = Int.random(in: 0...80, using: &generator)
            let bytes = (0..<count).map { _ in
                Bool.random(using: &generator)
                    ? fragments.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? AppleResponseParser.parse(bytes)
        }
    }

    @Test func anAutoRenewablesEntriesCarryTheSubscriptionItsRenewalInfoSays() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_100)
        let response = try AppleResponseParser.parse(
            Array(
                """
                {"status":0,"environment":"Production","receipt":{"bundle_id":"b","request_date_ms":"1700000050000",
                 "in_app":[]},
                 "latest_receipt_info":[
                  {"transaction_id":"10","original_transaction_id":"10","product_id":"vip","purchase_date_ms":"1699990000000",
                   "expires_date_ms":"1699995000000","is_trial_period":"true","subscription_group_identifier":"g"},
                  {"transaction_id":"11","original_transaction_id":"10","product_id":"vip","purchase_date_ms":"1699995000000",
                   "expires_date_ms":"1700000000000","is_trial_period":"false","in_app_ownership_type":"FAMILY_SHARED"},
                  {"transaction_id":"20","product_id":"gems","purchase_date_ms":"1699995000000"}],
                 "pending_renewal_info":[{"original_transaction_id":"10","auto_renew_product_id":"vip_gold",
                   "auto_renew_status":"0","is_in_billing_retry_period":"1","grace_period_expires_date_ms":"1700000200000"}]}
                """.utf8
            ),
            now: now
        )
        let entries = response.allTransactions
        #expect(entries.map(\.details.storeKind) == [.autoRenewable, .autoRenewable, nil])
        // A free trial's period costs nothing (it earns no trust); a shared one is Family Sharing's.
        #expect(entries.map(\.details.priceMilliunits) == [0, nil, nil])
        #expect(entries[1].details.isFamilyShared)
        #expect(entries[2].subscription == nil)
        let latest = try #require(entries[1].subscription)
        // The period ended, Apple retries the payment and its grace period runs: entitled until the grace ends.
        #expect(latest.subscriptionID == "apple:10" && latest.state == .gracePeriod)
        #expect(latest.entitledUntil == Date(timeIntervalSince1970: 1_700_000_200))
        #expect(latest.renewsTo == "vip_gold" && !latest.autoRenew && latest.ownership == "family_shared")
        #expect(latest.storeTime == Date(timeIntervalSince1970: 1_700_000_050))
        #expect(entries[0].subscription?.groupID == "g" && entries[0].subscription?.expiresAt != latest.expiresAt)
    }
}
