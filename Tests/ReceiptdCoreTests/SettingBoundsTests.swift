import Testing

@testable import ReceiptdCore

/// Every number and duration setting has an upper bound, checked at start: the bound itself is accepted, the
/// next value up and the extreme values that used to crash the daemon are refused, naming the variable.
@Suite struct SettingBoundsTests {
    /// Variable, the largest value accepted, a value just past it, and an extreme one.
    static let cases: [(variable: String, largest: String, pastIt: String, extreme: String)] = [
        ("RECEIPTD_CONCURRENCY", "4096", "4097", "9223372036854775807"),
        ("RECEIPTD_DB_CONNECTIONS", "512", "513", "1000000"),
        ("RECEIPTD_MAX_ATTEMPTS", "1000", "1001", "1000000000"),
        ("APPLE_SERVER_API_RATE", "10000", "10001", "9223372036854775807"),
        ("RECEIPTD_BACKOFF_BASE", "86400", "86400.5", "1e30"),
        ("RECEIPTD_BACKOFF_MAX", "86400", "86401", "1e30"),
        ("RECEIPTD_POLL_INTERVAL", "3600", "3601", "1e30"),
        ("RECEIPTD_PURCHASE_SKEW", "86400", "86401", "1e19"),
        ("RECEIPTD_LEASE", "86400", "86401", "1e30"),
        ("RECEIPTD_SHUTDOWN_GRACE", "3600", "3601", "1e30"),
        ("RECEIPTD_APPLE_TIMEOUT", "600", "601", "1e30"),
        ("RECEIPTD_RETENTION", "3650d", "3651d", "9999999d"),
        ("GOOGLE_PLAY_VOIDED_INTERVAL", "1d", "86401", "1e30"),
        ("GOOGLE_PLAY_FINALIZE_OVERDUE", "3d", "73h", "1e30"),
        ("RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL", "7d", "604801", "1e30"),
    ]

    @Test(arguments: cases.map(\.variable))
    func theBoundIsAcceptedAndAnythingPastItRefused(variable: String) throws {
        let bound = try #require(Self.cases.first { $0.variable == variable })
        // A lease long enough for the longest Apple timeout, so that only the variable under test is judged.
        let others = variable == "RECEIPTD_LEASE" ? [:] : ["RECEIPTD_LEASE": "86400"]
        _ = try ReceiptdSettings(completing: others.merging([variable: bound.largest]) { $1 })
        for refused in [bound.pastIt, bound.extreme] {
            #expect {
                _ = try ReceiptdSettings(completing: others.merging([variable: refused]) { $1 })
            } throws: { error in
                (error as? ConfigurationError)?.variable == variable && "\(error)".contains("at most")
            }
        }
    }

    @Test func theBoundsAreTheDocumentedOnes() throws {
        let largest = try ReceiptdSettings(completing: [
            "RECEIPTD_LEASE": "86400", "RECEIPTD_POLL_INTERVAL": "3600", "RECEIPTD_PURCHASE_SKEW": "86400",
            "RECEIPTD_RETENTION": "3650d",
            "GOOGLE_PLAY_VOIDED_INTERVAL": "24h", "RECEIPTD_CONCURRENCY": "4096",
        ])
        #expect(
            largest.daemon.lease == .seconds(86_400) && largest.daemon.pollInterval == .seconds(3600)
                && largest.daemon.purchaseSkew == .seconds(86_400)
        )
        #expect(
            largest.daemon.retention == .seconds(10 * 365 * 86_400)
                && largest.googlePlay.voidedInterval == .seconds(86_400)
        )
        #expect(largest.daemon.concurrency == ReceiptdSettings.Bounds.concurrency)
        #expect {
            _ = try ReceiptdSettings(completing: ["RECEIPTD_RETENTION": "9999999d"])
        } throws: { error in
            "\(error)".contains("RECEIPTD_RETENTION") && "\(error)".contains("3650d")
        }
    }
}
