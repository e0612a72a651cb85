extension ScriptStep {
    /// Reads a step from JSONSerialization output, leniently: anything that is
    /// not recognised becomes an empty step, which means "normal answer".
    init(jsonObject: Any) {
        let fields = jsonObject as? [String: Any] ?? [:]
        // Accept "retry_after": 2 as well as "2"; the header is text either way.
        let retryAfter = fields["retry_after"].flatMap { value in
            value as? String ?? (value as? Int).map(String.init)
        }
        self.init(
            http: fields["http"] as? Int,
            retryAfter: retryAfter,
            status: fields["status"] as? Int,
            isRetryable: fields["is_retryable"] as? Bool,
            raw: fields["raw"] as? String,
            reset: fields["reset"] as? Bool,
            delayMilliseconds: fields["delay_ms"] as? Int,
            errorCode: fields["error_code"] as? Int
        )
    }
}
