extension ReceiptdSettings {
    /// `RECEIPTD_PROVISIONAL`, `RECEIPTD_TRUST_INITIAL_APPLE`, `RECEIPTD_TRUST_INITIAL_GOOGLE`,
    /// `RECEIPTD_TRUST_RESTORE_AFTER`, `RECEIPTD_PROVISIONAL_AFTER` and `RECEIPTD_PROVISIONAL_LIMIT`.
    static func trust(_ reader: EnvironmentReader) throws(ConfigurationError) -> TrustConfiguration {
        var trust = TrustConfiguration()
        trust.provisional = try reader.choice("RECEIPTD_PROVISIONAL", ProvisionalGrants.self) ?? trust.provisional
        trust.initialApple = try reader.choice("RECEIPTD_TRUST_INITIAL_APPLE", TrustLevel.self) ?? trust.initialApple
        trust.initialGoogle =
            try reader.choice("RECEIPTD_TRUST_INITIAL_GOOGLE", TrustLevel.self) ?? trust.initialGoogle
        trust.restoreAfter =
            try reader.integer("RECEIPTD_TRUST_RESTORE_AFTER", minimum: 1, maximum: Bounds.restoreAfter)
            ?? trust.restoreAfter
        if let after = try reader.duration("RECEIPTD_PROVISIONAL_AFTER", maximum: Bounds.provisionalAfter) {
            // Shorter would grant orders whose store merely answered slowly once.
            guard after >= .seconds(1) else {
                throw ConfigurationError(variable: "RECEIPTD_PROVISIONAL_AFTER", problem: "must be at least 1s")
            }
            trust.provisionalAfter = after
        }
        trust.provisionalLimit =
            try reader.integer("RECEIPTD_PROVISIONAL_LIMIT", minimum: 1, maximum: Bounds.provisionalLimit)
            ?? trust.provisionalLimit
        return trust
    }
}
