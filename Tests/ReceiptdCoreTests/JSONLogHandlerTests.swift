import Foundation
import Logging
import Synchronization
import Testing

@testable import ReceiptdCore

@Suite struct JSONLogHandlerTests {
    /// Collects what a handler writes.
    final class Lines: Sendable {
        let storage = Mutex<[String]>([])
        var all: [String] { storage.withLock { $0 } }
        var sink: LogSink { LogSink { line in self.storage.withLock { $0.append(line) } } }
    }

    static let fixedDate = Date(timeIntervalSince1970: 1_700_000_000.123)

    static func logger(_ lines: Lines, level: Logger.Level = .info) -> Logger {
        Logger(label: "receiptd") { label in
            JSONLogHandler(label: label, logLevel: level, sink: lines.sink, metadataProvider: nil, clock: { fixedDate })
        }
    }

    static func parse(_ line: String) throws -> [String: Any] {
        #expect(line.hasSuffix("\n"))
        #expect(!line.dropLast().contains("\n"), "one event, one line")
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func writesTheFixedFieldsAndFlattenedMetadataAsStrings() throws {
        let lines = Lines()
        var logger = Self.logger(lines)
        logger[metadataKey: "daemon"] = "host:1:abc"
        logger.info(
            "job finished",
            metadata: [
                "order_id": "order-42", "job_id": "\(Int64(7))", "attempt": "\(3)",
                "apple": ["status": "21005", "environment": "Sandbox"],
            ]
        )
        let object = try Self.parse(try #require(lines.all.first))
        #expect(object["timestamp"] as? String == "2023-11-14T22:13:20.123Z")
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "receiptd")
        #expect(object["message"] as? String == "job finished")
        #expect(object["order_id"] as? String == "order-42")
        #expect(object["job_id"] as? String == "7")
        #expect(object["attempt"] as? String == "3")
        #expect(object["daemon"] as? String == "host:1:abc")
        #expect(object["apple.status"] as? String == "21005")
        #expect(object["apple.environment"] as? String == "Sandbox")
        #expect(object.values.allSatisfy { $0 is String })
    }

    @Test(arguments: [
        "plain", "quote \" and backslash \\ and slash /", "line\nbreak\r\ttab",
        "nul \u{00} bell \u{07} esc \u{1B} del \u{7F}",
        "\u{08}\u{0C}\u{1F}", "unicode: ümlaut, 日本語, emoji 🧾, separators \u{2028}\u{2029}", "",
    ])
    func escapesEveryStringSoItParsesBackUnchanged(text: String) throws {
        let lines = Lines()
        Self.logger(lines).error("\(text)", metadata: [text.isEmpty ? "empty" : "weird \"key\"\n": "\(text)"])
        let line = try #require(lines.all.first)
        let object = try Self.parse(line)
        #expect(object["message"] as? String == text)
        #expect(object[text.isEmpty ? "empty" : "weird \"key\"\n"] as? String == text)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "control characters are escaped")
    }

    @Test func metadataCannotShadowTheFixedFields() throws {
        let lines = Lines()
        Self.logger(lines).warning("real", metadata: ["message": "fake", "level": "critical"])
        let object = try Self.parse(try #require(lines.all.first))
        #expect(object["message"] as? String == "real")
        #expect(object["level"] as? String == "warning")
        #expect(object["metadata.message"] as? String == "fake")
        #expect(object["metadata.level"] as? String == "critical")
    }

    @Test func respectsTheLevelAndLetsCallMetadataWin() throws {
        let lines = Lines()
        var logger = Self.logger(lines, level: .notice)
        logger[metadataKey: "attempt"] = "1"
        logger.info("dropped")
        logger.notice("kept", metadata: ["attempt": "2"])
        #expect(lines.all.count == 1)
        let object = try Self.parse(try #require(lines.all.first))
        #expect(object["message"] as? String == "kept")
        #expect(object["attempt"] as? String == "2")
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"), (951_782_400.5, "2000-02-29T00:00:00.500Z"),
        (1_700_000_000.999, "2023-11-14T22:13:20.999Z"), (-0.25, "1969-12-31T23:59:59.750Z"),
    ])
    func timestampsAreUTCWithMilliseconds(seconds: Double, expected: String) {
        #expect(JSONLogHandler.iso8601(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test func theFormatFollowsTheTerminalUnlessChosen() throws {
        #expect(LogFormat.automatic(standardOutputIsTerminal: true) == .text)
        #expect(LogFormat.automatic(standardOutputIsTerminal: false) == .json)
        #expect(LogSetup.makeHandler(format: .json, label: "x", level: .debug) is JSONLogHandler)
        #expect(LogSetup.makeHandler(format: .text, label: "x", level: .debug).logLevel == .debug)
    }
}
