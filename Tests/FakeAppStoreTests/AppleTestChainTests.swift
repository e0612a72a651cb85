import Crypto
import FakeAppStore
import Foundation
import Testing
import X509

@Suite struct AppleTestChainTests {
    @Test func chainVerifiesToItsRootUnderRFC5280() async throws {
        let chain = try AppleTestChain.generate()
        var verifier = Verifier(rootCertificates: CertificateStore([chain.root])) { RFC5280Policy() }
        let result = await verifier.validate(leaf: chain.leaf, intermediates: CertificateStore([chain.intermediate]))
        guard case .validCertificate(let validated) = result else {
            Issue.record("chain refused: \(result)")
            return
        }
        #expect(Array(validated) == [chain.leaf, chain.intermediate, chain.root])
    }

    @Test func chainDoesNotVerifyToAnotherRoot() async throws {
        let chain = try AppleTestChain.generate()
        let stranger = try AppleTestChain.generate()
        var verifier = Verifier(rootCertificates: CertificateStore([stranger.root])) { RFC5280Policy() }
        let result = await verifier.validate(leaf: chain.leaf, intermediates: CertificateStore([chain.intermediate]))
        guard case .couldNotValidate = result else {
            Issue.record("a foreign root accepted the chain")
            return
        }
    }

    @Test func appleMarkersSitOnTheIntermediateAndTheLeafOnly() throws {
        let chain = try AppleTestChain.generate()
        let intermediateMarker = try #require(chain.intermediate.extensions[oid: AppleTestChain.intermediateMarkerOID])
        let leafMarker = try #require(chain.leaf.extensions[oid: AppleTestChain.leafMarkerOID])
        for marker in [intermediateMarker, leafMarker] {
            #expect(!marker.critical)
            #expect(Array(marker.value) == [0x05, 0x00])
        }
        #expect(chain.leaf.extensions[oid: AppleTestChain.intermediateMarkerOID] == nil)
        #expect(chain.intermediate.extensions[oid: AppleTestChain.leafMarkerOID] == nil)
        #expect(chain.root.extensions[oid: AppleTestChain.intermediateMarkerOID] == nil)
        #expect(chain.root.extensions[oid: AppleTestChain.leafMarkerOID] == nil)
        #expect("\(AppleTestChain.intermediateMarkerOID)" == "1.2.840.113635.100.6.2.1")
        #expect("\(AppleTestChain.leafMarkerOID)" == "1.2.840.113635.100.6.11.1")
    }

    @Test func markersCanBeLeftOut() throws {
        let chain = try AppleTestChain.generate(intermediateHasAppleOID: false, leafHasAppleOID: false)
        #expect(chain.intermediate.extensions[oid: AppleTestChain.intermediateMarkerOID] == nil)
        #expect(chain.leaf.extensions[oid: AppleTestChain.leafMarkerOID] == nil)
    }

    @Test func constraintsAndNamesLookLikeApples() throws {
        let chain = try AppleTestChain.generate()
        #expect(try chain.root.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
        #expect(try chain.intermediate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try chain.leaf.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try chain.leaf.extensions.keyUsage?.digitalSignature == true)
        #expect(try chain.intermediate.extensions.keyUsage?.keyCertSign == true)
        #expect(Set([chain.root.subject, chain.intermediate.subject, chain.leaf.subject]).count == 3)
        #expect(chain.leaf.signatureAlgorithm == .ecdsaWithSHA256)
    }

    @Test func derAndPEMEncodeTheSameRoot() throws {
        let chain = try AppleTestChain.generate()
        #expect(chain.rootPEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(try Certificate(pemEncoded: chain.rootPEM) == chain.root)
        #expect(try Certificate(derEncoded: chain.rootDER) == chain.root)
        #expect(try Certificate(derEncoded: chain.intermediateDER) == chain.intermediate)
        #expect(try Certificate(derEncoded: chain.leafDER) == chain.leaf)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("root-\(UUID()).pem").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try chain.writeRoot(toFile: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == chain.rootPEM)
    }

    @Test func validityFollowsTheRequestedDates() throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let end = Date(timeIntervalSince1970: 1_800_000_000)
        let chain = try AppleTestChain.generate(notValidBefore: start, notValidAfter: end)
        for certificate in [chain.root, chain.intermediate, chain.leaf] {
            #expect(certificate.notValidBefore == start)
            #expect(certificate.notValidAfter == end)
        }
    }

    @Test func mintedJWSIsSignedByTheLeafAndCarriesTheChain() throws {
        let chain = try AppleTestChain.generate()
        let payload = SignedTransactionPayload(
            transactionId: "2000000123",
            productId: "coins.100",
            appAccountToken: UUID().uuidString.lowercased()
        )
        let jws = try CompactJWS(chain.signedTransaction(payload))
        #expect(jws.header["alg"] as? String == "ES256")
        #expect(jws.x5c == [chain.leafDER, chain.intermediateDER, chain.rootDER])
        #expect(jws.signature.count == 64)
        #expect(try jws.isSigned(by: chain.leaf))
        #expect(try !jws.isSigned(by: chain.intermediate))
        #expect(try JSONDecoder().decode(SignedTransactionPayload.self, from: jws.payload) == payload)
    }

    @Test func x5cCanBeOverridden() throws {
        let chain = try AppleTestChain.generate()
        let stranger = try AppleTestChain.generate()
        let jws = try CompactJWS(chain.sign(payload: Data("{}".utf8), x5c: [stranger.leafDER, stranger.rootDER]))
        #expect(jws.x5c == [stranger.leafDER, stranger.rootDER])
        #expect(try jws.isSigned(by: chain.leaf))
        #expect(jws.payload == Data("{}".utf8))
    }
}
