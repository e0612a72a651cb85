import AsyncHTTPClient
import Foundation
import NIOSSL
import ReceiptdCore
import ReceiptdTestKit
import Testing

/// TLS as operators run it: libpq with `sslmode=verify-full` against a server whose certificate a
/// throwaway CA signed, and Apple calls that refuse a certificate the system does not trust.
@Suite struct TLSTests {
    // MARK: PostgreSQL through libpq

    // One cluster for every check: starting one (initdb, pg_ctl) is the costliest thing here, and
    // three at once slowed the tests running alongside enough to fail their timing.
    @Test func verifyFullConnectsOverTLSAndRefusesTheWrongServer() async throws {
        try await Self.withTLSPostgres { certificates, cluster in
            let server = "port=\(cluster.port) user=postgres dbname=postgres sslmode=verify-full"

            // By name, and by 127.0.0.1, which is checked against the IP subjectAltName (libpq 14 and later).
            for host in ["localhost", "127.0.0.1"] {
                let connection = try await PostgresConnection.connect(
                    "host=\(host) \(server) sslrootcert=\(certificates.caCertificate)"
                )
                let ssl =
                    try await connection.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").rows.first?
                    .first ?? nil
                await connection.close()
                #expect(ssl == "t", "host=\(host)")
            }

            // A CA that did not sign the server's certificate.
            let password = "hunter2-not-in-errors"
            let untrusted = try await #require(throws: PostgresError.self) {
                let connection = try await PostgresConnection.connect(
                    "host=localhost \(server) password=\(password) sslrootcert=\(certificates.otherCACertificate)"
                )
                await connection.close()
            }
            #expect(untrusted.kind == .connection)
            #expect(untrusted.message.contains("certificate"), "\(untrusted)")
            #expect(!untrusted.description.contains(password))

            // The right CA, but a name the certificate does not carry (hostaddr says where to connect).
            let misnamed = try await #require(throws: PostgresError.self) {
                let connection = try await PostgresConnection.connect(
                    "host=db.invalid hostaddr=127.0.0.1 \(server) sslrootcert=\(certificates.caCertificate)"
                )
                await connection.close()
            }
            #expect(misnamed.kind == .connection)
            #expect(misnamed.message.contains("db.invalid"), "\(misnamed)")
        }
    }

    // MARK: Apple through async-http-client

    @Test func appleClientRefusesACertificateTheSystemDoesNotTrust() async throws {
        try await Self.withAppleStandIn { certificates, server in
            // Exactly the client the daemon builds: the system trust store, which knows nothing of our CA.
            let result = try await Self.verify(with: HTTPClient.makeForStores(concurrency: 1), at: server.url)
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
            let result = try await Self.verify(
                with: Self.client(trusting: certificates.otherCACertificate),
                at: server.url
            )
            guard case .transport(let reason) = result else {
                Issue.record("expected a transport failure, got \(result)")
                return
            }
            #expect(Self.mentionsCertificateOrHandshake(reason), "\(reason)")
        }
    }

    // MARK: Helpers

    /// A TLS-only PostgreSQL (`ssl=on`, our server certificate) for the duration of `body`.
    private static func withTLSPostgres(_ body: (TestCertificates, TemporaryPostgres) async throws -> Void) async throws
    {
        let certificates = try await blocking { try TestCertificates.make() }
        defer { certificates.remove() }
        let cluster = try await blocking {
            try TemporaryPostgres.start(
                configuration: .init(
                    maxConnections: 20,
                    settings: [
                        "ssl": "on", "ssl_cert_file": certificates.serverCertificate,
                        "ssl_key_file": certificates.serverKey,
                    ]
                )
            )
        }
        do {
            try await body(certificates, cluster)
        } catch {
            _ = try? await blocking { cluster.stop() }
            throw error
        }
        _ = try? await blocking { cluster.stop() }
    }

    /// An HTTPS server presenting the test CA's `localhost` certificate for the duration of `body`.
    private static func withAppleStandIn(_ body: (TestCertificates, TLSAnswerServer) async throws -> Void) async throws
    {
        let certificates = try await blocking { try TestCertificates.make() }
        defer { certificates.remove() }
        let server = try await TLSAnswerServer.start(
            certificateFile: certificates.serverCertificate,
            keyFile: certificates.serverKey
        )
        do {
            try await body(certificates, server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Runs work that blocks for a while (openssl, initdb, pg_ctl) on a thread of its own. On Swift's
    /// cooperative pool, a thread per core, it starved tests running alongside (a watchdog test missed
    /// its pings); on NIO's shared thread pool it held up the metrics endpoint's database probe.
    private static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// One verification through `client`, which is shut down afterwards.
    private static func verify(with client: HTTPClient, at url: String) async throws -> AppleCallResult {
        // The client retries a refused handshake until this deadline, then fails with the reason.
        var configuration = AppleVerifier.Configuration()
        (configuration.productionURL, configuration.sandboxURL, configuration.requestTimeout) = (url, url, .seconds(2))
        let verifier = AppleVerifier(configuration: configuration, client: client)
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
