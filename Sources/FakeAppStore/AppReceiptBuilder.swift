import Foundation
import SwiftASN1

/// Builds app receipts in Apple's format for the `server_api` receipt path: a DER PKCS#7 `ContentInfo` of type
/// signedData whose content (type data) is the receipt's SET of attributes: the bundle id (2), the creation date
/// (12) and an in-app purchase (17) per payload with its `transaction_id` (1703), `original_transaction_id` (1705)
/// and `product_id` (1702).
///
/// The receipt is signed by ``signer``'s leaf, as Apple signs receipts under Apple Inc. Root; without a signer
/// the SignedData carries no certificates and no signer (a home-made receipt receiptd must refuse). The
/// verifyReceipt path of the stand-in wants ``SyntheticReceipt``s, not these.
package struct AppReceiptBuilder: Sendable {
    /// The bundle id attribute; `nil` leaves it out.
    package var bundleID: String?
    /// One in-app purchase attribute per payload, in this order.
    package var inApp: [SignedTransactionPayload]
    /// The creation date attribute, the instant the daemon checks the signing chain at; `nil` leaves it out.
    package var creationDate: Date?
    /// The chain whose leaf signs the receipt (``AppleReceiptTestChain/shared`` by default); `nil` leaves it unsigned.
    package var signer: AppleReceiptTestChain?

    /// Creates a builder for a receipt of `bundleID` holding `inApp`, made `creationDate` and signed by `signer`.
    package init(
        bundleID: String? = SyntheticReceipt.defaultBundleID,
        inApp: [SignedTransactionPayload] = [],
        creationDate: Date? = Date(),
        signer: AppleReceiptTestChain? = .shared
    ) {
        self.bundleID = bundleID
        self.inApp = inApp
        self.creationDate = creationDate
        self.signer = signer
    }

    /// The receipt as the app would send it: base64 of the DER.
    package func encoded() -> String {
        Data(der()).base64EncodedString()
    }

    /// The receipt's DER bytes.
    package func der() -> [UInt8] {
        do {
            var content = DER.Serializer()
            try Self.attributes(into: &content, inAppReceiptAttributes())
            if let signer { return try signer.sign(content.serializedBytes) }
            var serializer = DER.Serializer()
            try serializer.appendConstructedNode(identifier: .sequence) { contentInfo in
                try contentInfo.serialize(Self.signedDataOID)
                try contentInfo.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { wrapper in
                    try wrapper.appendConstructedNode(identifier: .sequence) { signedData in
                        try signedData.serialize(1)  // version
                        signedData.appendConstructedNode(identifier: .set) { _ in }  // digestAlgorithms
                        try signedData.appendConstructedNode(identifier: .sequence) { encapsulated in
                            try encapsulated.serialize(Self.dataOID)
                            try encapsulated.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) {
                                tagged in
                                try tagged.serialize(ASN1OctetString(contentBytes: content.serializedBytes[...]))
                            }
                        }
                        signedData.appendConstructedNode(identifier: .set) { _ in }  // signerInfos
                    }
                }
            }
            return serializer.serializedBytes
        } catch {
            // Strings, small integers and fixed OIDs always serialize, and an RSA key this process made always signs.
            preconditionFailure("AppReceiptBuilder failed to serialize: \(error)")
        }
    }

    private static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    private static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]

    /// The receipt's attributes: its bundle id, then each in-app purchase as a nested SET.
    private func inAppReceiptAttributes() throws -> [(type: Int, value: [UInt8])] {
        var attributes: [(type: Int, value: [UInt8])] = []
        if let bundleID { attributes.append((2, try Self.utf8(bundleID))) }
        if let creationDate {
            // IA5String, RFC 3339 in UTC without fractions, as Apple writes it.
            var date = DER.Serializer()
            try date.serialize(try ASN1IA5String(ISO8601DateFormatter().string(from: creationDate)))
            attributes.append((12, date.serializedBytes))
        }
        for payload in inApp {
            var purchase = DER.Serializer()
            try Self.attributes(
                into: &purchase,
                [
                    (1702, try Self.utf8(payload.productId)),
                    (1703, try Self.utf8(payload.transactionId)),
                    (1705, try Self.utf8(payload.originalTransactionId)),
                ]
            )
            attributes.append((17, purchase.serializedBytes))
        }
        return attributes
    }

    /// A SET of `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`, in the given
    /// order (Apple's receipts are not sorted as DER would sort a SET OF; readers must not care).
    private static func attributes(
        into serializer: inout DER.Serializer,
        _ attributes: [(type: Int, value: [UInt8])]
    ) throws {
        try serializer.appendConstructedNode(identifier: .set) { set in
            for attribute in attributes {
                try set.appendConstructedNode(identifier: .sequence) { sequence in
                    try sequence.serialize(attribute.type)
                    try sequence.serialize(1)
                    try sequence.serialize(ASN1OctetString(contentBytes: attribute.value[...]))
                }
            }
        }
    }

    /// A UTF8String's DER, the value of a string attribute.
    private static func utf8(_ text: String) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(ASN1UTF8String(text))
        return serializer.serializedBytes
    }
}
