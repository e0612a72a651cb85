extension String {
    /// The text with every control character made visible, for printing on a terminal: an id or error stored
    /// in the database must not move the cursor, recolour the screen or forge a line of output.
    ///
    /// Tab, line feed and carriage return become `\t`, `\n` and `\r`; every other C0 control, DEL and
    /// the C1 controls (U+0080…U+009F) become `\u{1B}`-style escapes, as in a Swift string literal. A backslash
    /// becomes `\\`, so stored text cannot pass for an escape. Text without any of these is returned as it is.
    package var terminalSafe: String {
        guard unicodeScalars.contains(where: Self.needsTerminalEscape) else { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\t": escaped += "\\t"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case _ where Self.needsTerminalEscape(scalar):
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// C0 controls, DEL, C1 controls, and the backslash that starts an escape.
    private static func needsTerminalEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\\"
    }
}
