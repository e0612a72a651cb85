import Crypto
import Foundation
import SwiftASN1
import X509

/// A throwaway P-256 certificate chain shaped like the one Apple signs
/// StoreKit 2 transactions with: root CA → intermediate → leaf.
///
/// The intermediate carries Apple's WWDR intermediate marker
/// (`1.2.840.113635.100.6.2.1`) and the leaf Apple's receipt-signing marker
/// (`1.2.840.113635.100.6.11.1`), both non-critical with a DER NULL value, so a
/// verifier that checks them accepts this chain once given ``rootPEM`` as its root.
package struct AppleTestChain: Sendable {
    /// OID Apple puts on the intermediate (WWDR) certificate.
    package static let intermediateMarkerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    /// OID Apple puts on the leaf certificate that signs transactions.
    package static let leafMarkerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    /// The self-signed root CA.
    package let root: Certificate
    /// The intermediate CA, signed by the root.
    package let intermediate: Certificate
    /// The signing certificate, signed by the intermediate.
    package let leaf: Certificate
    /// The leaf's key: it signs every JWS minted with this chain.
    let leafKey: P256.Signing.PrivateKey

    /// The root's DER encoding.
    package let rootDER: [UInt8]
    /// The intermediate's DER encoding.
    package let intermediateDER: [UInt8]
    /// The leaf's DER encoding.
    package let leafDER: [UInt8]

    /// Generates fresh keys and certificates, all valid over the same period.
    ///
    /// Setting `intermediateHasAppleOID` or `leafHasAppleOID` to `false` leaves
    /// that marker out, for tests of a verifier that must then refuse the chain.
    package static func generate(
        notValidBefore: Date = Date() - 86_400,
        notValidAfter: Date = Date() + 10 * 365 * 86_400,
        intermediateHasAppleOID: Bool = true,
        leafHasAppleOID: Bool = true
    ) throws -> AppleTestChain {
        let leafKey = P256.Signing.PrivateKey()
        let chain = try AppleShapedChain(
            keys: (
                Certificate.PrivateKey(P256.Signing.PrivateKey()), Certificate.PrivateKey(P256.Signing.PrivateKey()),
                Certificate.PrivateKey(leafKey)
            ),
            names: ("receiptd test root", "receiptd test intermediate", "receiptd test signing leaf"),
            signatureAlgorithm: .ecdsaWithSHA256,
            validity: (notValidBefore, notValidAfter),
            intermediateHasAppleOID: intermediateHasAppleOID,
            leafHasAppleOID: leafHasAppleOID
        )
        return try AppleTestChain(
            root: chain.root,
            intermediate: chain.intermediate,
            leaf: chain.leaf,
            leafKey: leafKey
        )
    }

    private init(
        root: Certificate,
        intermediate: Certificate,
        leaf: Certificate,
        leafKey: P256.Signing.PrivateKey
    ) throws {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.leafKey = leafKey
        rootDER = try Self.der(root)
        intermediateDER = try Self.der(intermediate)
        leafDER = try Self.der(leaf)
    }

    /// The root certificate as PEM (`-----BEGIN CERTIFICATE-----`), what the daemon is told to trust.
    package var rootPEM: String {
        PEMDocument(type: "CERTIFICATE", derBytes: rootDER).pemString
    }

    /// Writes ``rootPEM`` to `path`, replacing any file there.
    package func writeRoot(toFile path: String) throws {
        try Data(rootPEM.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    private static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
