import ReceiptdCore
import Testing

@Suite struct TerminalEscapingTests {
    @Test func controlCharactersBecomeVisibleEscapes() {
        #expect("\u{1B}[31mred".terminalSafe == #"\u{1B}[31mred"#)
        #expect("a\rb\nc\td".terminalSafe == #"a\rb\nc\td"#)
        #expect("\r\n".terminalSafe == #"\r\n"#, "CR LF is one Character but two escapes")
        #expect("\u{0}\u{7}\u{7F}".terminalSafe == #"\u{0}\u{7}\u{7F}"#)
        #expect("\u{9B}2J \u{85}".terminalSafe == #"\u{9B}2J \u{85}"#, "C1 controls: CSI and NEL")
        #expect(#"C:\path\n"#.terminalSafe == #"C:\\path\\n"#, "a stored backslash cannot pass for an escape")
    }

    @Test func everyControlCharacterIsEscaped() {
        let controls = (0..<0xA0).compactMap(Unicode.Scalar.init).filter { $0.value < 0x20 || $0.value >= 0x7F }
        let text = String(String.UnicodeScalarView(controls))
        let escaped = text.terminalSafe
        #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(escaped.unicodeScalars.allSatisfy { $0.isASCII })
    }

    @Test func ordinaryTextIsUnchanged() {
        for text in ["order-42", "gems × 3", "née Zoë", "注文", "🙂 ok", "", "a - b  c"] {
            #expect(text.terminalSafe == text)
        }
    }
}
