import Foundation
import Testing

@testable import ReceiptdCore

/// The JOSE alphabet both ways, byte by byte: every length pads right, the two characters that differ from
/// standard base64 are swapped, and standard base64's own characters are refused.
struct Base64URLTests {
    @Test func roundTripsEveryLengthWithoutPadding() {
        for length in 0...40 {
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) })
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("="))
            #expect(!text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
    }

    @Test func swapsTheTwoCharactersThatDiffer() {
        // 0xfb 0xff 0xbf is "+/+/" in standard base64.
        let bytes = Data([0xfb, 0xff, 0xbf])
        #expect(Base64URL.encode(bytes) == "-_-_")
        #expect(Base64URL.decode("-_-_") == bytes)
    }

    @Test func refusesStandardBase64AndNonsense() {
        #expect(Base64URL.decode("+/+/") == nil)
        #expect(Base64URL.decode("ab/c") == nil)
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("ab!c") == nil)
        #expect(Base64URL.decode("é") == nil)
    }

    @Test func takesPaddedText() {
        #expect(Base64URL.decode("YQ==") == Data("a".utf8))
        #expect(Base64URL.decode("YQ") == Data("a".utf8))
    }
}
