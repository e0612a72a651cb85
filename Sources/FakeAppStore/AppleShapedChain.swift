import Foundation
import SwiftASN1
import X509

/// The three certificates of a chain shaped like one of Apple's: a self-signed root CA, an intermediate CA with
/// Apple's WWDR marker (`1.2.840.113635.100.6.2.1`) and a signing leaf with Apple's signing marker
/// (`1.2.840.113635.100.6.11.1`), both non-critical with a DER NULL value. ``AppleTestChain`` (P-256, signed
/// transactions) and ``AppleReceiptTestChain`` (RSA, app receipts) differ only in their keys, names and algorithm.
struct AppleShapedChain {
    /// The self-signed root CA.
    let root: Certificate
    /// The intermediate CA, signed by the root.
    let intermediate: Certificate
    /// The signing certificate, signed by the intermediate.
    let leaf: Certificate

    /// Issues the chain; `names` are the common names of root, intermediate and leaf. Setting
    /// `intermediateHasAppleOID` or `leafHasAppleOID` to `false` leaves that marker out.
    init(
        keys: (root: Certificate.PrivateKey, intermediate: Certificate.PrivateKey, leaf: Certificate.PrivateKey),
        names: (root: String, intermediate: String, leaf: String),
        signatureAlgorithm: Certificate.SignatureAlgorithm,
        validity: (notBefore: Date, notAfter: Date),
        intermediateHasAppleOID: Bool,
        leafHasAppleOID: Bool
    ) throws {
        let rootName = try Self.name(names.root)
        let intermediateName = try Self.name(names.intermediate)
        func issue(
            _ subject: DistinguishedName,
            key: Certificate.PrivateKey,
            by issuer: DistinguishedName,
            _ issuerKey: Certificate.PrivateKey,
            extensions: Certificate.Extensions
        ) throws -> Certificate {
            try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: key.publicKey,
                notValidBefore: validity.notBefore,
                notValidAfter: validity.notAfter,
                issuer: issuer,
                subject: subject,
                signatureAlgorithm: signatureAlgorithm,
                extensions: extensions,
                issuerPrivateKey: issuerKey
            )
        }
        root = try issue(
            rootName,
            key: keys.root,
            by: rootName,
            keys.root,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            }
        )
        intermediate = try issue(
            intermediateName,
            key: keys.intermediate,
            by: rootName,
            keys.root,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                if intermediateHasAppleOID {
                    Self.marker(AppleTestChain.intermediateMarkerOID)
                }
            }
        )
        leaf = try issue(
            try Self.name(names.leaf),
            key: keys.leaf,
            by: intermediateName,
            keys.intermediate,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                if leafHasAppleOID {
                    Self.marker(AppleTestChain.leafMarkerOID)
                }
            }
        )
    }

    private static func name(_ commonName: String) throws -> DistinguishedName {
        try DistinguishedName {
            CommonName(commonName)
            OrganizationName("receiptd tests")
        }
    }

    /// Apple's marker extensions: non-critical, value DER NULL.
    private static func marker(_ oid: ASN1ObjectIdentifier) -> Certificate.Extension {
        Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])
    }
}
