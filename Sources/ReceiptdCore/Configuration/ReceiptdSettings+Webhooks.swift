extension ReceiptdSettings {
    /// `RECEIPTD_WEBHOOK_URL` and `RECEIPTD_WEBHOOK_SECRET_FILE`: both, or neither (webhooks off). The secrets'
    /// text never reaches an error.
    static func webhooks(_ reader: EnvironmentReader) throws(ConfigurationError) -> WebhookConfiguration? {
        let url = try reader.url("RECEIPTD_WEBHOOK_URL")
        let secretFile = try reader.secretFile("RECEIPTD_WEBHOOK_SECRET_FILE")
        switch (url, secretFile) {
        case (nil, nil):
            return nil
        case (nil, _):
            throw ConfigurationError(
                variable: "RECEIPTD_WEBHOOK_URL",
                problem: "is required with RECEIPTD_WEBHOOK_SECRET_FILE: the endpoint events are sent to"
            )
        case (_, nil):
            throw ConfigurationError(
                variable: "RECEIPTD_WEBHOOK_SECRET_FILE",
                problem: "is required with RECEIPTD_WEBHOOK_URL: a file holding the whsec_ signing secret"
            )
        case (let url?, let text?):
            return WebhookConfiguration(url: url, secrets: try WebhookSecrets(fileText: text))
        }
    }
}
