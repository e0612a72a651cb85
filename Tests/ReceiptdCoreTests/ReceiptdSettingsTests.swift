import Testing

@testable import ReceiptdCore

@Suite struct ReceiptdSettingsTests {
    @Test func defaultsMatchTheContract() throws {
        let settings = try ReceiptdSettings(completing: [:])
        #expect(settings.apple.productionURL == "https://buy.itunes.apple.com/verifyReceipt")
        #expect(settings.apple.sandboxURL == "https://sandbox.itunes.apple.com/verifyReceipt")
        #expect(settings.apple.sharedSecret == nil)
        #expect(settings.daemon.concurrency == 64)
        #expect(settings.daemon.maxAttempts == 12)
        #expect(settings.daemon.backoff == Backoff(base: .seconds(2), maximum: .seconds(3600)))
        #expect(settings.daemon.pollInterval == .seconds(1))
        #expect(settings.daemon.purchaseSkew == .seconds(300))
        #expect(settings.daemon.lease == .seconds(60) && settings.daemon.shutdownGrace == .seconds(25))
        #expect(settings.daemon.databaseConnections == 11)
        #expect(settings.logLevel == .info)
    }

    @Test func valuesAreRead() throws {
        let settings = try ReceiptdSettings(completing: [
            "DATABASE_URL": "postgresql://u:pw@h/db", "APPLE_SHARED_SECRET": "s3cret", "APPLE_BUNDLE_ID": "com.x",
            "RECEIPTD_CONCURRENCY": "8", "RECEIPTD_DB_CONNECTIONS": "3", "RECEIPTD_BACKOFF_BASE": "0.5",
            "RECEIPTD_LOG_LEVEL": "DEBUG",
            "APPLE_VERIFY_URL": "http://127.0.0.1:9/verifyReceipt",
        ])
        #expect(settings.databaseURL == "postgresql://u:pw@h/db")
        #expect(settings.apple.sharedSecret == "s3cret")
        #expect(settings.daemon.expectedBundleID == "com.x")
        #expect(settings.daemon.concurrency == 8)
        #expect(settings.daemon.databaseConnections == 3)
        #expect(settings.daemon.backoff.base == .milliseconds(500))
        #expect(settings.logLevel == .debug)
        #expect(settings.apple.productionURL == "http://127.0.0.1:9/verifyReceipt")
    }

    @Test(arguments: [
        ("RECEIPTD_CONCURRENCY", "many"), ("RECEIPTD_CONCURRENCY", "0"), ("RECEIPTD_DB_CONNECTIONS", "0"),
        ("RECEIPTD_MAX_ATTEMPTS", "-1"),
        ("RECEIPTD_BACKOFF_BASE", "-2"), ("RECEIPTD_BACKOFF_MAX", "soon"), ("RECEIPTD_POLL_INTERVAL", "0"),
        ("RECEIPTD_PURCHASE_SKEW", "-5"), ("RECEIPTD_LOG_LEVEL", "loud"), ("APPLE_VERIFY_URL", "ftp://apple.com/x"),
        ("APPLE_SANDBOX_VERIFY_URL", "not a url"), ("RECEIPTD_LEASE", "5"),
    ])
    func badValuesNameTheirVariable(name: String, value: String) {
        #expect {
            _ = try ReceiptdSettings(completing: [name: value])
        } throws: { error in
            (error as? ConfigurationError)?.variable == name
        }
    }
}

@Suite struct BundleAndSandboxSettingTests {
    @Test func theBundleIDIsRequired() {
        for environment in [[:], ["APPLE_BUNDLE_ID": ""]] {
            #expect {
                _ = try ReceiptdSettings(environment: environment)
            } throws: { error in
                (error as? ConfigurationError)?.variable == "APPLE_BUNDLE_ID"
            }
        }
    }

    @Test func sandboxPurchasesAreAcceptedUnlessRefused() throws {
        #expect(try ReceiptdSettings(completing: [:]).daemon.sandbox == .accept)
        #expect(try ReceiptdSettings(completing: ["RECEIPTD_SANDBOX": "reject"]).daemon.sandbox == .reject)
        #expect(try ReceiptdSettings(completing: ["RECEIPTD_SANDBOX": "Accept"]).daemon.sandbox == .accept)
        #expect {
            _ = try ReceiptdSettings(completing: ["RECEIPTD_SANDBOX": "maybe"])
        } throws: { error in
            (error as? ConfigurationError)?.variable == "RECEIPTD_SANDBOX" && "\(error)".contains("accept, reject")
        }
    }
}

@Suite struct UnclaimedSinceSettingTests {
    @Test func anISO8601TimeOrDateIsRead() throws {
        #expect(try ReceiptdSettings(completing: [:]).daemon.unclaimedSince == nil)
        let time = try ReceiptdSettings(completing: ["RECEIPTD_UNCLAIMED_SINCE": "2026-11-20T10:00:00Z"]).daemon
            .unclaimedSince
        #expect(time?.timeIntervalSince1970 == 1_795_168_800)
        let date = try ReceiptdSettings(completing: ["RECEIPTD_UNCLAIMED_SINCE": "2026-11-20"]).daemon.unclaimedSince
        #expect(date?.timeIntervalSince1970 == 1_795_132_800)
        #expect {
            _ = try ReceiptdSettings(completing: ["RECEIPTD_UNCLAIMED_SINCE": "last week"])
        } throws: { error in
            (error as? ConfigurationError)?.variable == "RECEIPTD_UNCLAIMED_SINCE"
        }
    }
}

@Suite struct RetentionSettingTests {
    @Test func retentionTakesSecondsOrUnits() throws {
        #expect(try ReceiptdSettings(completing: [:]).daemon.retention == .seconds(30 * 86_400))
        #expect(try ReceiptdSettings(completing: ["RECEIPTD_RETENTION": "7d"]).daemon.retention == .seconds(7 * 86_400))
        #expect(
            try ReceiptdSettings(completing: ["RECEIPTD_RETENTION": "12h"]).daemon.retention == .seconds(12 * 3_600)
        )
        #expect(try ReceiptdSettings(completing: ["RECEIPTD_RETENTION": "90"]).daemon.retention == .seconds(90))
        for bad in ["soon", "-1d", "0"] {
            #expect(throws: ConfigurationError.self) { try ReceiptdSettings(completing: ["RECEIPTD_RETENTION": bad]) }
        }
    }
}

/// Issue 47: how long after a refusal for good a subscription is read again: a day by default, from a minute to a
/// week.
@Suite struct SubscriptionReadRetrySettingTests {
    @Test func theIntervalDefaultsToADayAndTakesSecondsOrUnitsFromAMinuteToAWeek() throws {
        let name = "RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL"
        #expect(try ReceiptdSettings(completing: [:]).daemon.subscriptionReadRetryInterval == .seconds(86_400))
        #expect(try ReceiptdSettings(completing: [name: "6h"]).daemon.subscriptionReadRetryInterval == .seconds(21_600))
        #expect(try ReceiptdSettings(completing: [name: "1m"]).daemon.subscriptionReadRetryInterval == .seconds(60))
        #expect(
            try ReceiptdSettings(completing: [name: "7d"]).daemon.subscriptionReadRetryInterval == .seconds(604_800)
        )
        for (bad, problem) in [
            ("59", "at least 1m"), ("0.5m", "at least 1m"), ("169h", "at most 7d"), ("soon", "not a duration"),
        ] {
            #expect {
                _ = try ReceiptdSettings(completing: [name: bad])
            } throws: { error in
                (error as? ConfigurationError)?.variable == name && "\(error)".contains(problem)
            }
        }
    }
}
