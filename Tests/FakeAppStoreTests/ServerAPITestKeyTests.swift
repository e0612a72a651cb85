import Crypto
import FakeAppStore
import Foundation
import Testing

@Suite struct ServerAPITestKeyTests {
    @Test func writesAPKCS8PEMOnlyItsOwnerCanRead() throws {
        let key = ServerAPITestKey.generate()
        #expect(key.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID()).p8").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try key.write(toFile: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let read = try P256.Signing.PrivateKey(pemRepresentation: try String(contentsOfFile: path, encoding: .utf8))
        #expect(read.publicKey.rawRepresentation == key.publicKey.rawRepresentation)
    }

    @Test func bearerTokenIsAnES256JWTWithApplesClaims() throws {
        let key = ServerAPITestKey.generate()
        let issuedAt = Date(timeIntervalSince1970: 1_700_000_000)
        let token = try CompactJWS(key.bearerToken(issuedAt: issuedAt))
        #expect(token.header["alg"] as? String == "ES256")
        #expect(token.header["kid"] as? String == "TESTKEY123")
        #expect(token.header["typ"] as? String == "JWT")
        let claims = try #require(try JSONSerialization.jsonObject(with: token.payload) as? [String: Any])
        #expect(claims["aud"] as? String == "appstoreconnect-v1")
        #expect(claims["iss"] as? String == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(claims["bid"] as? String == "com.example.game")
        #expect(claims["iat"] as? Int == 1_700_000_000)
        #expect(claims["exp"] as? Int == 1_700_001_200)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: token.signature)
        #expect(key.publicKey.isValidSignature(signature, for: Data(token.signingInput.utf8)))
    }
}
