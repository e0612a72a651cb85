import Foundation
import Testing

@testable import ReceiptdCore

@Suite struct TimeBoundTests {
    @Test(arguments: [
        ("90m", 5_400), ("2h", 7_200), ("7d", 604_800), ("30s", 30), ("1w", 604_800), ("0m", 0), (" 2h ", 7_200),
    ])
    func durationsCountBackFromNow(text: String, seconds: Int) throws {
        #expect(try TimeBound(parsing: text) == .secondsAgo(seconds))
    }

    @Test func isoTimesAreInstants() throws {
        #expect(try TimeBound(parsing: "2026-11-20T10:00:00Z") == .instant(Date(timeIntervalSince1970: 1_795_168_800)))
        #expect(
            try TimeBound(parsing: "2026-11-20T11:00:00+01:00") == .instant(Date(timeIntervalSince1970: 1_795_168_800))
        )
        #expect(
            try TimeBound(parsing: "2026-11-20T10:00:00.500Z") == .instant(Date(timeIntervalSince1970: 1_795_168_800.5))
        )
        #expect(try TimeBound(parsing: "2026-11-20") == .instant(Date(timeIntervalSince1970: 1_795_132_800)))
    }

    @Test(arguments: [
        "", "h", "2", "-2h", "2y", "two hours", "2026-11-20T10:00:00", "99999999999999999999d", "2.5h", "٣h",
    ])
    func anythingElseIsRefusedWithAnExample(text: String) {
        let error = #expect(throws: TimeBound.ParseError.self) { try TimeBound(parsing: text) }
        #expect(error?.description.contains("90m") == true)
    }

    @Test func sqlParametersCarryEitherTheInstantOrTheSeconds() throws {
        let instant = try TimeBound(parsing: "2026-11-20T10:00:00Z")
        #expect(instant.instantText == "2026-11-20T10:00:00.000Z" && instant.secondsAgoValue == nil)
        let relative = try TimeBound(parsing: "2h")
        #expect(relative.instantText == nil && relative.secondsAgoValue == 7_200)
    }
}
