import Foundation
import Testing

@testable import ReceiptdCore

/// App receipts read for the `server_api` path: Apple's PKCS#7 layout in DER and in BER with indefinite lengths,
/// receipts without purchases, and inputs that are no receipt at all. The bytes are written out here so the test
/// does not trust the builder it checks against.
@Suite struct AppReceiptTests {
    /// A DER tag-length-value.
    static func node(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        guard content.count >= 128 else { return [tag, UInt8(content.count)] + content }
        var length: [UInt8] = []
        var count = content.count
        while count > 0 {
            length.insert(UInt8(count & 0xFF), at: 0)
            count >>= 8
        }
        return [tag, 0x80 | UInt8(length.count)] + length + content
    }

    /// A BER constructed node of indefinite length, as Apple's signing tools write the outer layers.
    static func indefinite(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag, 0x80] + content + [0, 0]
    }

    static func integer(_ value: Int) -> [UInt8] {
        var bytes = [UInt8(value & 0xFF)]
        var rest = value >> 8
        while rest > 0 || bytes[0] >= 0x80 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return node(0x02, bytes)
    }

    static func utf8(_ text: String) -> [UInt8] { node(0x0C, Array(text.utf8)) }

    static func attribute(_ type: Int, _ value: [UInt8]) -> [UInt8] {
        node(0x30, integer(type) + integer(1) + node(0x04, value))
    }

    static func inApp(_ fields: [(Int, [UInt8])]) -> [UInt8] {
        attribute(17, node(0x31, fields.flatMap { attribute($0.0, $0.1) }))
    }

    static let signedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    static let dataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
    static let envelopedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x03]

    /// `ContentInfo { signedData, [0] SignedData { 1, {}, { data, [0] OCTET STRING content }, {} } }` in DER.
    static func receipt(_ content: [UInt8], type: [UInt8] = signedDataOID) -> String {
        let encapsulated = node(0x30, dataOID + node(0xA0, node(0x04, content)))
        let signedData = node(0x30, integer(1) + node(0x31, []) + encapsulated + node(0x31, []))
        return Data(node(0x30, type + node(0xA0, signedData))).base64EncodedString()
    }

    static let twoPurchases = node(
        0x31,
        attribute(2, utf8("com.example.game"))
            + inApp([(1702, utf8("gems")), (1703, utf8("1000001")), (1705, utf8("1000001"))])
            + attribute(19, utf8("1.0"))
            + inApp([(1703, utf8("1000002")), (1705, utf8("1000001"))])
    )

    @Test func aReceiptNamesItsBundleAndEveryPurchase() throws {
        let receipt = try AppReceipt(base64: Self.receipt(Self.twoPurchases))
        #expect(receipt == AppReceipt(bundleID: "com.example.game", transactionIDs: ["1000001", "1000002"]))
        #expect(receipt.firstTransactionID == "1000001")
    }

    @Test func base64LineBreaksAreIgnored() throws {
        let wrapped = Data(base64Encoded: Self.receipt(Self.twoPurchases))!.base64EncodedString(
            options: .lineLength64Characters
        )
        #expect(wrapped.contains("\r\n"))
        #expect(try AppReceipt(base64: wrapped).transactionIDs == ["1000001", "1000002"])
    }

    @Test func berIndefiniteLengthsAndAChunkedOctetStringAreRead() throws {
        let content = Self.twoPurchases
        let half = content.count / 2
        let chunked = Self.indefinite(
            0x24,
            Self.node(0x04, Array(content[..<half])) + Self.node(0x04, Array(content[half...]))
        )
        let encapsulated = Self.indefinite(0x30, Self.dataOID + Self.indefinite(0xA0, chunked))
        let signedData = Self.indefinite(
            0x30,
            Self.integer(1) + Self.node(0x31, []) + encapsulated + Self.node(0x31, [])
        )
        let ber = Self.indefinite(0x30, Self.signedDataOID + Self.indefinite(0xA0, signedData))
        let receipt = try AppReceipt(base64: Data(ber).base64EncodedString())
        #expect(receipt == AppReceipt(bundleID: "com.example.game", transactionIDs: ["1000001", "1000002"]))
    }

    @Test func anOriginalIdStandsInAndIA5StringsAreRead() throws {
        let content = Self.node(
            0x31,
            Self.attribute(2, Self.node(0x16, Array("com.example.game".utf8)))
                + Self.inApp([(1705, Self.node(0x16, Array("2000001".utf8)))])
        )
        let receipt = try AppReceipt(base64: Self.receipt(content))
        #expect(receipt == AppReceipt(bundleID: "com.example.game", transactionIDs: ["2000001"]))
    }

    @Test func aReceiptWithoutPurchasesHasNoTransaction() throws {
        let receipt = try AppReceipt(
            base64: Self.receipt(Self.node(0x31, Self.attribute(2, Self.utf8("com.example.game"))))
        )
        #expect(receipt == AppReceipt(bundleID: "com.example.game", transactionIDs: []))
        #expect(receipt.firstTransactionID == nil)
    }

    @Test(arguments: [
        ("", "receipt is not base64"),
        ("not base64 at all!", "receipt is not base64"),
        (Data("{\"in_app\":[]}".utf8).base64EncodedString(), "receipt is not a PKCS#7 signedData container"),
        (Data([0x30, 0x03, 0x02, 0x01]).base64EncodedString(), "receipt is not a PKCS#7 signedData container"),
        (
            AppReceiptTests.receipt(AppReceiptTests.twoPurchases, type: AppReceiptTests.envelopedDataOID),
            "receipt is not a PKCS#7 signedData container"
        ),
        (AppReceiptTests.receipt([]), "receipt's PKCS#7 container holds no receipt content"),
        (AppReceiptTests.receipt(AppReceiptTests.node(0x30, [])), "receipt content is not a SET of attributes"),
        (
            AppReceiptTests.receipt(AppReceiptTests.node(0x31, AppReceiptTests.node(0x30, AppReceiptTests.integer(2)))),
            "receipt holds an attribute that is not {type, version, value}"
        ),
        (
            AppReceiptTests.receipt(
                AppReceiptTests.node(0x31, AppReceiptTests.attribute(17, AppReceiptTests.node(0x04, [1, 2])))
            ), "in-app purchase content is not a SET of attributes"
        ),
    ])
    func whatIsNoReceiptSaysWhy(input: String, reason: String) {
        #expect(throws: AppReceipt.FormatError(description: reason)) { try AppReceipt(base64: input) }
    }
}
