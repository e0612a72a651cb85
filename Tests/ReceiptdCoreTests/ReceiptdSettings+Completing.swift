@testable import ReceiptdCore

extension ReceiptdSettings {
    /// Settings from `environment` plus the variable `receiptd run` requires, so each test names only what it checks.
    init(completing environment: [String: String]) throws(ConfigurationError) {
        try self.init(environment: ["APPLE_BUNDLE_ID": "com.example.game"].merging(environment) { $1 })
    }
}
