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
}
