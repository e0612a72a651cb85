extension String {
    /// Appends `"key":"value"` (preceded by a comma unless `first`), both escaped as JSON strings.
    mutating func appendJSONField(_ key: String, _ value: String, first: Bool = false) {
        if !first { append(",") }
        appendJSONString(key)
        append(":")
        appendJSONString(value)
    }

    /// Appends `text` as a quoted JSON string: quotes, backslashes and every control character escaped.
    mutating func appendJSONString(_ text: String) {
        append("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": append("\\\"")
            case "\\": append("\\\\")
            case "\n": append("\\n")
            case "\r": append("\\r")
            case "\t": append("\\t")
            case "\u{08}": append("\\b")
            case "\u{0C}": append("\\f")
            // Other C0 controls, DEL, and the two line separators that break JavaScript-based readers.
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                append("\\u")
                let hex = String(scalar.value, radix: 16)
                append(String(repeating: "0", count: 4 - hex.count) + hex)
            default: unicodeScalars.append(scalar)
            }
        }
        append("\"")
    }
}
