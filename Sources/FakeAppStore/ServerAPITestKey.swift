import Crypto
import Foundation

/// A throwaway App Store Connect API key (ES256), as the daemon loads it from a `.p8` file.
package struct ServerAPITestKey: Sendable {
    /// The private key, which signs the daemon's bearer tokens.
    package let privateKey: P256.Signing.PrivateKey

    /// The public half, for ``AppStoreStandIn/Configuration/serverAPIKey``.
    package var publicKey: P256.Signing.PublicKey {
        privateKey.publicKey
    }

    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the format of Apple's `.p8` files.
    package var privateKeyPEM: String {
        privateKey.pemRepresentation
    }

    /// Makes a fresh key.
    package static func generate() -> ServerAPITestKey {
        ServerAPITestKey(privateKey: P256.Signing.PrivateKey())
    }

    /// Writes ``privateKeyPEM`` to `path` readable by its owner only (mode 0600), replacing any file there.
    package func write(toFile path: String) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            try manager.removeItem(atPath: path)
        }
        // Created with its final mode, so the key is never readable by others, even briefly.
        guard
            manager.createFile(
                atPath: path,
                contents: Data(privateKeyPEM.utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
