import Crypto
import Foundation
import SwiftASN1
import Synchronization
@_spi(FixedExpiryValidationTime) import X509

/// Verifies a compact JWS the App Store signed (a StoreKit 2 transaction, a server notification) offline, as
/// Apple's `SignedDataVerifier` does: ES256, an `x5c` chain of three certificates that verifies to a trusted root
/// at the payload's own `signedDate`, Apple's OIDs on the leaf and the intermediate, and a signature made with the
/// leaf's key. What the payload says (bundle, environment) is its caller's to judge.
package final class AppleJWSVerifier: Sendable {
    /// Why a JWS is not one Apple made: which kind of check failed, and the check in words.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        /// The kinds of check, in the order they run.
        package enum Check: Sendable, Equatable {
            /// Not a compact JWS, a header or payload that is not JSON, a payload without its fields, a signature
            /// that is not 64 bytes: not well-formed, whoever sent it.
            case format
            /// The header's `alg` or `x5c`, the chain to a trusted root at `signedDate`, Apple's OIDs.
            case chain
            /// The signature does not verify with the leaf's key.
            case signature
        }

        /// The kind of check that failed.
        package var check: Check
        /// The failed check, in words.
        package var description: String
    }

    private static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    private static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    /// How long a verified chain is remembered, as Apple's library does.
    private static let chainCacheLifetime: Duration = .seconds(15 * 60)
    private static let chainCacheLimit = 32

    private let roots: CertificateStore
    /// Verified JWS headers (their base64url text): the leaf's key and the instants the chain's certificates are
    /// all valid, until the entry expires.
    private let verifiedChains = Mutex<[String: VerifiedChain]>([:])

    /// Creates a verifier that trusts `roots` (Apple Root CA - G3 in production).
    package init(roots: [Certificate]) {
        self.roots = CertificateStore(roots)
    }

    /// The payload of `jws` read by `read`, once every check passed.
    ///
    /// - Parameters:
    ///   - noun: what the JWS is (`signed transaction`, `notification`), the start of every failure's words.
    ///   - read: reads the payload's bytes; its error is a `.format` failure.
    ///   - signedDate: the instant the payload was signed, when the chain must be valid.
    package func verify<Payload>(
        _ jws: String,
        noun: String,
        read: (Data) throws -> Payload,
        signedDate: (Payload) -> Date
    ) async throws(Failure) -> Payload {
        // Split on the UTF-8 bytes: a Character-wise split of a notification (its nested transaction inside) costs
        // more than its signature check.
        let bytes = jws.utf8
        let dot = UInt8(ascii: ".")
        guard let first = bytes.firstIndex(of: dot),
            let second = bytes[bytes.index(after: first)...].firstIndex(of: dot),
            !bytes[bytes.index(after: second)...].contains(dot),
            let payloadBytes = Base64URL.decode(jws[bytes.index(after: first)..<second]),
            let signatureBytes = Base64URL.decode(jws[bytes.index(after: second)...])
        else {
            throw Failure(check: .format, description: "\(noun) is not a compact JWS")
        }
        // The header first (its checks come first), unless it is one verified a moment ago.
        let headerText = String(jws[..<first])
        let known = verifiedChains.withLock { $0[headerText] }.flatMap { $0.expires > .now ? $0 : nil }
        let x5c = known == nil ? try Self.certificates(inHeader: headerText, noun: noun) : []
        let payload: Payload
        do {
            payload = try read(payloadBytes)
        } catch {
            throw Failure(check: .format, description: "\(noun) payload: \(error)")
        }
        // A truncated signature is a malformed JWS, not a forged one.
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes) else {
            throw Failure(check: .format, description: "\(noun) signature is not 64 bytes")
        }
        let date = signedDate(payload)
        let key: P256.Signing.PublicKey
        if let known {
            guard known.validity.contains(date) else {
                throw Failure(check: .chain, description: "certificate chain is not valid at signedDate \(date)")
            }
            key = known.key
        } else {
            key = try await verifiedKey(header: headerText, x5c: x5c, at: date, noun: noun)
        }
        guard key.isValidSignature(signature, for: Data(bytes[..<second])) else {
            throw Failure(
                check: .signature,
                description: "\(noun) signature does not verify with its leaf certificate's key"
            )
        }
        return payload
    }

    /// The header's `x5c`, once it says ES256 and holds three certificates.
    private static func certificates(inHeader text: String, noun: String) throws(Failure) -> [String] {
        guard let headerBytes = Base64URL.decode(Substring(text)),
            let header = try? JSONDecoder().decode(Header.self, from: headerBytes)
        else {
            throw Failure(check: .format, description: "\(noun) header is not JSON")
        }
        guard header.alg == "ES256" else {
            throw Failure(check: .chain, description: "\(noun) alg is \(header.alg ?? "absent"), not ES256")
        }
        guard let x5c = header.x5c, x5c.count == 3 else {
            throw Failure(
                check: .chain,
                description: "\(noun) x5c holds \(header.x5c?.count ?? 0) certificates, not 3"
            )
        }
        return x5c
    }

    /// The leaf's key, once the chain in `x5c` verifies to a trusted root at `date` with Apple's OIDs; remembered
    /// for 15 minutes under the header's text (Apple signs many payloads under one header), after which a
    /// known header is neither decoded nor verified again: only `date` is checked against its validity.
    private func verifiedKey(
        header text: String,
        x5c: [String],
        at date: Date,
        noun: String
    ) async throws(Failure) -> P256.Signing.PublicKey {
        let now = ContinuousClock.now
        let certificates: [Certificate]
        do {
            certificates = try x5c.prefix(2).map { entry in
                guard let der = Data(base64Encoded: entry) else {
                    throw Failure(check: .chain, description: "not base64")
                }
                return try Certificate(derEncoded: Array(der))
            }
        } catch {
            throw Failure(check: .chain, description: "\(noun) x5c holds a certificate that cannot be read")
        }
        var verifier = Verifier(rootCertificates: roots) { RFC5280Policy(fixedExpiryValidationTime: date) }
        let chain: ValidatedCertificateChain
        switch await verifier.validate(leaf: certificates[0], intermediates: CertificateStore([certificates[1]])) {
        case .validCertificate(let validated):
            chain = validated
        case .couldNotValidate(let failures):
            let reason = failures.first.map { "\($0.policyFailureReason)" } ?? "no path to a trusted root"
            throw Failure(
                check: .chain,
                description: "certificate chain does not verify to a trusted root at signedDate: \(reason)"
            )
        }
        guard chain.count == 3 else {
            throw Failure(check: .chain, description: "certificate chain has \(chain.count) certificates, not 3")
        }
        guard chain[1].extensions.contains(where: { $0.oid == Self.intermediateOID }) else {
            throw Failure(
                check: .chain,
                description: "intermediate certificate lacks Apple's OID 1.2.840.113635.100.6.2.1"
            )
        }
        guard chain[0].extensions.contains(where: { $0.oid == Self.leafOID }) else {
            throw Failure(check: .chain, description: "leaf certificate lacks Apple's OID 1.2.840.113635.100.6.11.1")
        }
        guard let key = P256.Signing.PublicKey(chain[0].publicKey) else {
            throw Failure(check: .chain, description: "leaf certificate's key is not P-256")
        }
        let validity = chain.map(\.notValidBefore).max()!...chain.map(\.notValidAfter).min()!
        verifiedChains.withLock { cache in
            if cache.count >= Self.chainCacheLimit { cache = cache.filter { $0.value.expires > now } }
            if cache.count < Self.chainCacheLimit {
                cache[text] = VerifiedChain(key: key, validity: validity, expires: now + Self.chainCacheLifetime)
            }
        }
        return key
    }

    private struct Header: Decodable {
        var alg: String?
        var x5c: [String]?
    }

    private struct VerifiedChain {
        var key: P256.Signing.PublicKey
        var validity: ClosedRange<Date>
        var expires: ContinuousClock.Instant
    }
}
