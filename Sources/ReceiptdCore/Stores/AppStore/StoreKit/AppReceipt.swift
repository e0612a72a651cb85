import Foundation
import SwiftASN1
import X509

/// What an app receipt (base64 PKCS#7, as `Bundle.main.appStoreReceiptURL` holds it) says about itself, read the way
/// Apple's `ReceiptUtility` reads it to call the App Store Server API, and its PKCS#7 signature. Reading checks
/// nothing: nobody may believe a word of it before `ReceiptSignatureVerifier` has checked ``signature``.
///
/// Parsed as BER, so Apple's indefinite lengths and constructed OCTET STRINGs are read as well as plain DER.
package struct AppReceipt: Sendable, Equatable {
    /// Why a job's input is not an app receipt, for `last_error`.
    package struct FormatError: Error, Equatable, CustomStringConvertible {
        /// What is wrong with it.
        package var description: String
    }

    /// The receipt's bundle id (attribute 2), when it has one.
    package var bundleID: String?
    /// Each in-app purchase's `transaction_id` (attribute 1703), or its `original_transaction_id` (1705) when it
    /// has none, in receipt order; empty when the receipt holds no in-app purchase.
    package var transactionIDs: [String]

    /// The receipt's creation date (attribute 12), the instant its signing chain must be valid at.
    package var creationDate: Date?
    /// The `SignedData`'s signer and certificates; `nil` when the receipt has no signer at all.
    package var signature: AppReceiptSignature?

    /// Creates a receipt's contents directly.
    package init(
        bundleID: String?,
        transactionIDs: [String],
        creationDate: Date? = nil,
        signature: AppReceiptSignature? = nil
    ) {
        self.bundleID = bundleID
        self.transactionIDs = transactionIDs
        self.creationDate = creationDate
        self.signature = signature
    }

    /// Reads a base64 app receipt; line breaks and spaces in the base64 are ignored.
    package init(base64 receipt: String) throws(FormatError) {
        let text = receipt.filter { !$0.isWhitespace }
        guard !text.isEmpty, let bytes = Data(base64Encoded: text) else {
            throw FormatError(description: "receipt is not base64")
        }
        let (content, signature) = try Self.signedData(Array(bytes))
        self.signature = signature
        let attributes = try Self.attributes(content, of: "receipt")
        bundleID = attributes.first { $0.type == Self.bundleIDType }.flatMap { Self.string($0.value) }
        creationDate = attributes.first { $0.type == Self.creationDateType }.flatMap { Self.string($0.value) }.flatMap(
            Self.date
        )
        var ids: [String] = []
        for inApp in attributes where inApp.type == Self.inAppType {
            let fields = try Self.attributes(inApp.value, of: "in-app purchase")
            let id =
                fields.first { $0.type == Self.transactionIDType }
                ?? fields.first { $0.type == Self.originalTransactionIDType }
            // An in-app purchase whose id we cannot read is an error, not an empty receipt: the order would
            // otherwise end `no_in_app` for a receipt that holds a purchase.
            guard let id = id.flatMap({ Self.string($0.value) }), !id.isEmpty else {
                throw FormatError(description: "receipt holds an in-app purchase without a readable transaction id")
            }
            ids.append(id)
        }
        transactionIDs = ids
    }

    /// The transaction to ask the history for: the first in-app purchase's, as Apple's library takes.
    package var firstTransactionID: String? { transactionIDs.first }

    private static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    private static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    private static let bundleIDType = 2
    private static let creationDateType = 12
    private static let inAppType = 17
    private static let transactionIDType = 1703
    private static let originalTransactionIDType = 1705

    /// One `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
    private struct Attribute {
        var type: Int
        var value: [UInt8]
    }

    /// The eContent of `ContentInfo { signedData, SignedData { version, digestAlgorithms, encapContentInfo { data, [0] OCTET STRING },
    /// [0] certificates, [1] crls, signerInfos } }`, and the signature over it.
    private static func signedData(
        _ bytes: [UInt8]
    ) throws(FormatError) -> (content: [UInt8], signature: AppReceiptSignature?) {
        let notPKCS7 = FormatError(description: "receipt is not a PKCS#7 signedData container")
        guard let root = try? BER.parse(bytes), var contentInfo = children(root, .sequence)?.makeIterator(),
            let type = contentInfo.next().flatMap({ try? ASN1ObjectIdentifier(berEncoded: $0) }), type == signedDataOID,
            let wrapper = contentInfo.next(),
            wrapper.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
            let signedData = children(wrapper, wrapper.identifier)?.first(where: { _ in true }),
            var fields = children(signedData, .sequence)?.makeIterator()
        else { throw notPKCS7 }
        _ = fields.next()  // version
        _ = fields.next()  // digestAlgorithms
        guard let encapsulated = fields.next(),
            var encapsulatedFields = children(encapsulated, .sequence)?.makeIterator(),
            let contentType = encapsulatedFields.next().flatMap({ try? ASN1ObjectIdentifier(berEncoded: $0) })
        else { throw notPKCS7 }
        guard contentType == dataOID,
            let tagged = encapsulatedFields.next(),
            tagged.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
            let octets = children(tagged, tagged.identifier)?.first(where: { _ in true }),
            let content = try? ASN1OctetString(berEncoded: octets), !content.bytes.isEmpty
        else { throw FormatError(description: "receipt's PKCS#7 container holds no receipt content") }
        var certificates: [Certificate] = []
        var signerInfos: [ASN1Node] = []
        while let field = fields.next() {
            if let members = children(field, ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) {
                for member in members {
                    guard let certificate = try? Certificate(derEncoded: Array(member.encodedBytes)) else {
                        throw FormatError(description: "receipt holds a certificate that cannot be read")
                    }
                    certificates.append(certificate)
                }
            } else if let members = children(field, .set) {
                signerInfos = Array(members)
            }
        }
        guard signerInfos.count <= 1 else {
            throw FormatError(description: "receipt has \(signerInfos.count) signers, not 1")
        }
        guard let signer = signerInfos.first else { return (Array(content.bytes), nil) }
        return (
            Array(content.bytes), try Self.signature(signer, certificates: certificates, content: Array(content.bytes))
        )
    }

    /// `SignerInfo ::= SEQUENCE { version, sid IssuerAndSerialNumber, digestAlgorithm, [0] signedAttrs OPTIONAL,
    /// signatureAlgorithm, signature OCTET STRING, [1] unsignedAttrs OPTIONAL }`.
    private static func signature(
        _ node: ASN1Node,
        certificates: [Certificate],
        content: [UInt8]
    ) throws(FormatError) -> AppReceiptSignature {
        let unreadable = FormatError(description: "receipt's signer information cannot be read")
        guard var fields = children(node, .sequence)?.makeIterator(), fields.next() != nil,  // version
            let sid = fields.next(), var sidFields = children(sid, .sequence)?.makeIterator(),
            let issuer = sidFields.next().flatMap({ try? DistinguishedName(derEncoded: $0) }),
            let serial = sidFields.next(), serial.identifier == .integer,
            case .primitive(let serialBytes) = serial.content,
            let digest = fields.next().flatMap(algorithm)
        else { throw unreadable }
        var next = fields.next()
        let hasSignedAttributes = next?.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
        if hasSignedAttributes { next = fields.next() }
        guard let signatureAlgorithm = next.flatMap(algorithm),
            let signature = fields.next().flatMap({ try? ASN1OctetString(berEncoded: $0) }), !signature.bytes.isEmpty
        else { throw unreadable }
        return AppReceiptSignature(
            certificates: certificates,
            signerIssuer: issuer,
            signerSerialNumber: Certificate.SerialNumber(bytes: serialBytes),
            digestAlgorithm: digest,
            signatureAlgorithm: signatureAlgorithm,
            hasSignedAttributes: hasSignedAttributes,
            signature: Array(signature.bytes),
            signedContent: content
        )
    }

    /// The OID of an `AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }`.
    private static func algorithm(_ node: ASN1Node) -> ASN1ObjectIdentifier? {
        children(node, .sequence)?.first(where: { _ in true }).flatMap { try? ASN1ObjectIdentifier(berEncoded: $0) }
    }

    /// An RFC 3339 time as receipts write it (`2024-02-23T17:27:16Z`, fractions allowed).
    private static func date(_ text: String) -> Date? {
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds],
        ] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// A DER SET of receipt attributes; `what` names it in errors.
    private static func attributes(_ bytes: [UInt8], of what: String) throws(FormatError) -> [Attribute] {
        guard let node = try? BER.parse(bytes), let members = children(node, .set) else {
            throw FormatError(description: "\(what) content is not a SET of attributes")
        }
        var attributes: [Attribute] = []
        for member in members {
            guard var fields = children(member, .sequence)?.makeIterator(),
                let type = fields.next().flatMap({ try? Int(berEncoded: $0) }),
                fields.next() != nil,
                let value = fields.next().flatMap({ try? ASN1OctetString(berEncoded: $0) })
            else { throw FormatError(description: "\(what) holds an attribute that is not {type, version, value}") }
            attributes.append(Attribute(type: type, value: Array(value.bytes)))
        }
        return attributes
    }

    /// The nodes inside a constructed node with `identifier`; `nil` for anything else.
    private static func children(_ node: ASN1Node, _ identifier: ASN1Identifier) -> ASN1NodeCollection? {
        guard node.identifier == identifier, case .constructed(let nodes) = node.content else { return nil }
        return nodes
    }

    /// An attribute value holding a UTF8String or IA5String.
    private static func string(_ value: [UInt8]) -> String? {
        guard let node = try? BER.parse(value) else { return nil }
        if let text = try? ASN1UTF8String(berEncoded: node) { return String(text) }
        if let text = try? ASN1IA5String(berEncoded: node) { return String(text) }
        return nil
    }
}
