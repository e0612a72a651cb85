extension ReceiptdSettings {
    /// `RECEIPTD_REFUND_GAME_WAIT` (1s to 6h), `RECEIPTD_REFUND_PREFERENCE` (or its old name
    /// `APPLE_REFUND_PREFERENCE`), `RECEIPTD_REFUND_DECLINE_FROM`, `RECEIPTD_SAMPLE_CONTENT_PROVIDED` and
    /// `RECEIPTD_REFUND_ABUSE_LIMIT`.
    static func refunds(_ reader: EnvironmentReader) throws(ConfigurationError) -> RefundConfiguration {
        var refunds = RefundConfiguration()
        if let wait = try reader.duration("RECEIPTD_REFUND_GAME_WAIT", maximum: .seconds(6 * 3600)) {
            guard wait >= .seconds(1) else {
                throw ConfigurationError(variable: "RECEIPTD_REFUND_GAME_WAIT", problem: "must be at least 1s")
            }
            refunds.gameWait = wait
        }
        if let preference = try reader.choice("RECEIPTD_REFUND_PREFERENCE", RefundPolicyChoice.self) {
            refunds.preference = preference
        } else if let preference = try reader.choice("APPLE_REFUND_PREFERENCE", RefundPolicyChoice.self) {
            refunds.preference = preference
        }
        refunds.declineFrom =
            try reader.integer("RECEIPTD_REFUND_DECLINE_FROM", minimum: 0, maximum: 100_000) ?? refunds.declineFrom
        if let text = reader.string("RECEIPTD_SAMPLE_CONTENT_PROVIDED") {
            guard let value = Bool(text.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw ConfigurationError(
                    variable: "RECEIPTD_SAMPLE_CONTENT_PROVIDED",
                    problem: "must be true or false, got \"\(text)\""
                )
            }
            refunds.sampleContentProvided = value
        }
        refunds.abuseLimit =
            try reader.integer("RECEIPTD_REFUND_ABUSE_LIMIT", minimum: 0, maximum: 1000) ?? refunds.abuseLimit
        return refunds
    }
}
