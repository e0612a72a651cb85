import Foundation
import Testing

@testable import ReceiptdCore

@Suite struct JSONTextTests {
    /// Parses `text` back with Foundation, the reference the hand-written encoder must agree with.
    private func parsed(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    @Test(arguments: [
        "", "plain base64+/=", "quote \" backslash \\ slash /", "lines\nand\rtabs\t", "\u{01}\u{1F} controls",
        "ünïcödé ✓ 🎮", "\\\"\\n",
    ])
    func stringsRoundTrip(_ string: String) throws {
        #expect(try parsed(JSONText.array([string])) as? [String] == [string])
    }

    @Test func controlCharactersUseLowercaseUnicodeEscapes() {
        #expect(JSONText.array(["\u{01}\u{1F}"]) == #"["\u0001\u001f"]"#)
    }

    @Test func rowsKeepFieldOrderAndTypes() throws {
        let text = JSONText.rows([
            [("id", .string("t1")), ("quantity", .int(2)), ("ok", .bool(true))],
            [("id", .string("t2")), ("quantity", .int(-1)), ("ok", .bool(false))],
        ])
        #expect(text == #"[{"id":"t1","quantity":2,"ok":true},{"id":"t2","quantity":-1,"ok":false}]"#)
        let rows = try #require(try parsed(text) as? [[String: Any]])
        #expect(rows.map { $0["quantity"] as? Int } == [2, -1])
    }

    @Test func emptyCollections() {
        #expect(JSONText.array([]) == "[]")
        #expect(JSONText.rows([]) == "[]")
        #expect(JSONText.object([]) == "{}")
    }
}
