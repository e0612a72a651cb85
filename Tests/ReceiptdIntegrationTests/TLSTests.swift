import AsyncHTTPClient
import Foundation
import NIOSSL
import ReceiptdCore
import Testing

/// TLS as operators run it: libpq with `sslmode=verify-full` against a server whose certificate a
/// throwaway CA signed, and Apple calls that refuse a certificate the system does not trust.
@Suite struct TLSTests {
    // MARK: PostgreSQL through libpq

    @Test func verifyFullConnectsByNameAndByAddressOverTLS() async throws {
        try await Self.withTLSPostgres { certificates, cluster in
            for host in ["localhost", "127.0.0.1"] {
                // 127.0.0.1 is checked against the certificate's IP subjectAltName (libpq 14 and later).
                let connection = try await PostgresConnection.connect(
                    "host=\(host) port=\(cluster.port) user=postgres dbname=postgres sslmode=verify-full sslrootcert=\(certificates.caCertificate)"
                )
                let ssl = try await connection.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").rows.first?.first ?? nil
                await connection.close()
                #expect(ssl == "t", "host=\(host)")
            }
        }
    }

    @Test func verifyFullRefusesAServerTheGivenCADidNotSign() async throws {
        try await Self.withTLSPostgres { certificates, cluster in
            let password = "hunter2-not-in-errors"
            let error = try await #require(throws: PostgresError.self) {
                let connection = try await PostgresConnection.connect(
                    "host=localhost port=\(cluster.port) user=postgres password=\(password) dbname=postgres "
                        + "sslmode=verify-full sslrootcert=\(certificates.otherCACertificate)"
                )
                await connection.close()
            }
            #expect(error.kind == .connection)
            #expect(error.message.contains("certificate"), "\(error)")
            #expect(!error.description.contains(password))
        }
    }

    @Test func verifyFullRefusesAServerWhoseCertificateNamesAnotherHost() async throws {
        try await Self.withTLSPostgres { certificates, cluster in
            // Same server and CA, but asked for by a name the certificate does not carry (hostaddr says where to connect).
            let error = try await #require(throws: PostgresError.self) {
                let connection = try await PostgresConnection.connect(
                    "host=db.invalid hostaddr=127.0.0.1 port=\(cluster.port) user=postgres dbname=postgres sslmode=verify-full "
                        + "sslrootcert=\(certificates.caCertificate)"
                )
                await connection.close()
            }
            #expect(error.kind == .connection)
            #expect(error.message.contains("db.invalid"), "\(error)")
        }
    }

    // MARK: Apple through async-http-client

    @Test func appleClientRefusesACertificateTheSystemDoesNotTrust() async throws {
        try await Self.withAppleStandIn { certificates, server in
            // Exactly the client the daemon builds: the system trust store, which knows nothing of our CA.
            let result = try await Self.verify(with: HTTPClient.makeForApple(concurrency: 1), at: server.url)
            guard case .transport(let reason) = result else {
                Issue.record("expected a transport failure, got \(result)")
                return
            }
            #expect(Self.mentionsCertificateOrHandshake(reason), "\(reason)")
        }
    }

    @Test func aClientTrustingTheTestCAGetsTheAnswer() async throws {
        try await Self.withAppleStandIn { certificates, server in
            // Proves the server side works, so the refusal above is about trust and nothing else.
            let result = try await Self.verify(with: Self.client(trusting: certificates.caCertificate), at: server.url)
            guard case .answered(let response, let environment) = result else {
                Issue.record("expected an answer, got \(result)")
                return
            }
            #expect(response.status == 21003)
            #expect(environment == .production)
        }
    }

    @Test func aClientTrustingAnotherCAIsRefused() async throws {
        try await Self.withAppleStandIn { certificates, server in
            let result = try await Self.verify(with: Self.client(trusting: certificates.otherCACertificate), at: server.url)
            guard case .transport(let reason) = result else {
                Issue.record("expected a transport failure, got \(result)")
                return
            }
            #expect(Self.mentionsCertificateOrHandshake(reason), "\(reason)")
        }
    }

    // MARK: Helpers

    /// A TLS-only PostgreSQL (`ssl=on`, our server certificate) for the duration of `body`.
    private static func withTLSPostgres(_ body: (TestCertificates, TemporaryPostgres) async throws -> Void) async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let cluster = try TemporaryPostgres.start(configuration: .init(maxConnections: 20, settings: [
            "ssl": "on", "ssl_cert_file": certificates.serverCertificate, "ssl_key_file": certificates.serverKey,
        ]))
        defer { cluster.stop() }
        try await body(certificates, cluster)
    }

    /// An HTTPS server presenting the test CA's `localhost` certificate for the duration of `body`.
    private static func withAppleStandIn(_ body: (TestCertificates, TLSAnswerServer) async throws -> Void) async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let server = try await TLSAnswerServer.start(certificateFile: certificates.serverCertificate, keyFile: certificates.serverKey)
        do {
            try await body(certificates, server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// One verification through `client`, which is shut down afterwards.
    private static func verify(with client: HTTPClient, at url: String) async throws -> AppleCallResult {
        // The client retries a refused handshake until this deadline, then fails with the reason.
        let verifier = AppleVerifier(configuration: .init(productionURL: url, sandboxURL: url, requestTimeout: .seconds(2)),
                                     client: client)
        let result = await verifier.verify(receiptData: "AAAA")
        try await client.shutdown()
        return result
    }

    /// A client that verifies certificates against `caFile` instead of the system trust store.
    private static func client(trusting caFile: String) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    private static func mentionsCertificateOrHandshake(_ reason: String) -> Bool {
        let lowered = reason.lowercased()
        return lowered.contains("certificate") || lowered.contains("handshake")
    }
}
