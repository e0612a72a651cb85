/// JSON text for the few documents receiptd writes: the `jsonb` parameters that carry a set of rows,
/// and the verifyReceipt request body.
///
/// Written by hand: Foundation's `JSONSerialization` spent a fifth of the daemon's CPU in dynamic casts.
enum JSONText {
    /// A value in a row: only the kinds the parameters need.
    enum Value {
        case string(String)
        case int(Int64)
        case bool(Bool)
        case null

        /// A string, or `null` for `nil`.
        static func optional(_ string: String?) -> Value { string.map(Value.string) ?? .null }
        /// A number, or `null` for `nil`.
        static func optional(_ number: Int?) -> Value { number.map { .int(Int64($0)) } ?? .null }
    }

    /// A JSON array of strings.
    static func array(_ strings: [String]) -> String {
        var text = "["
        // Grown once, not doubled a dozen times over a batch.
        text.reserveCapacity(strings.reduce(2) { $0 + $1.utf8.count + 3 })
        for (index, string) in strings.enumerated() {
            if index > 0 { text += "," }
            appendQuoted(string, to: &text)
        }
        return text + "]"
    }

    /// A JSON array of objects, each given as its fields in order.
    static func rows(_ rows: [[(String, Value)]]) -> String {
        var text = "["
        text.reserveCapacity(rows.reduce(2) { total, row in row.reduce(total + 3) { $0 + $1.0.utf8.count + 24 } })
        for (index, row) in rows.enumerated() {
            if index > 0 { text += "," }
            appendObject(row, to: &text)
        }
        return text + "]"
    }

    /// A JSON object with `fields` in order.
    static func object(_ fields: [(String, Value)]) -> String {
        var text = ""
        appendObject(fields, to: &text)
        return text
    }

    /// Appends a JSON object with `fields` in order.
    private static func appendObject(_ fields: [(String, Value)], to text: inout String) {
        text += "{"
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { text += "," }
            appendQuoted(key, to: &text)
            text += ":"
            switch value {
            case .string(let string): appendQuoted(string, to: &text)
            case .int(let number): text += String(number)
            case .bool(let flag): text += flag ? "true" : "false"
            case .null: text += "null"
            }
        }
        text += "}"
    }

    /// Appends `string` as a JSON string literal (RFC 8259 escapes).
    static func appendQuoted(_ string: String, to text: inout String) {
        text += "\""
        // Receipts are base64: nearly always nothing to escape, and one scan of the bytes says so.
        // Scanned as a buffer where the string has one (native strings do): a tight loop, not one call a byte.
        let clean =
            string.utf8.withContiguousStorageIfAvailable { !$0.contains(where: needsEscape) }
            ?? !string.utf8.contains(where: needsEscape)
        if clean {
            text += string
        } else {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(string.utf8.count + 16)
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), byte]
                case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
                case UInt8(ascii: "\n"): bytes += Array("\\n".utf8)
                case UInt8(ascii: "\r"): bytes += Array("\\r".utf8)
                case UInt8(ascii: "\t"): bytes += Array("\\t".utf8)
                case 0..<0x20: bytes += Array("\\u00".utf8) + [hexDigit(byte >> 4), hexDigit(byte & 0xF)]
                default: bytes.append(byte)
                }
            }
            text += String(decoding: bytes, as: UTF8.self)
        }
        text += "\""
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
