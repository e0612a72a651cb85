import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PKI made with the `openssl` CLI: a CA, a server certificate it signed for `localhost`
/// (subjectAltName `DNS:localhost,IP:127.0.0.1`), and an unrelated CA that signed nothing of ours.
///
/// The files live in a private directory under /tmp. When the tests run as root, the directory and
/// its files belong to `postgres`, because the throwaway PostgreSQL runs as that user and must read
/// the server key, which it accepts only when it owns the key and nobody else may read it.
struct TestCertificates: Sendable {
    let directory: String

    var caCertificate: String { directory + "/ca.crt" }
    var otherCACertificate: String { directory + "/other-ca.crt" }
    var serverCertificate: String { directory + "/server.crt" }
    var serverKey: String { directory + "/server.key" }

    /// Makes both CAs and the server certificate in a new directory.
    static func make() throws -> TestCertificates {
        var template = Array("/tmp/receiptd-tls.XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw CertificateError("mkdtemp: \(String(cString: strerror(errno)))")
        }
        let certificates = TestCertificates(directory: String(cString: created))
        do {
            try certificates.generate()
            try certificates.handOverToServerAccount()
        } catch {
            certificates.remove()
            throw error
        }
        return certificates
    }

    /// Deletes the directory.
    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func generate() throws {
        // EC keys: generating them is instant, unlike RSA.
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let caExtensions = [
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ]
        try Self.openssl(
            ["req", "-x509"] + newKey + [
                "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
                "-subj", "/CN=receiptd test CA",
            ] + caExtensions,
            in: directory
        )
        try Self.openssl(
            ["req", "-x509"] + newKey + [
                "-keyout", "other-ca.key", "-out", "other-ca.crt", "-days", "2",
                "-subj", "/CN=receiptd unrelated CA",
            ] + caExtensions,
            in: directory
        )
        try Self.openssl(
            ["req", "-new"] + newKey + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"],
            in: directory
        )
        let serverExtensions = """
            subjectAltName = DNS:localhost, IP:127.0.0.1
            basicConstraints = CA:FALSE
            keyUsage = critical, digitalSignature, keyEncipherment
            extendedKeyUsage = serverAuth

            """
        try serverExtensions.write(toFile: directory + "/server.ext", atomically: true, encoding: .utf8)
        try Self.openssl(
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.crt", "-days", "2", "-extfile", "server.ext",
            ],
            in: directory
        )
        // PostgreSQL refuses a key that group or others can read.
        guard chmod(serverKey, 0o600) == 0 else {
            throw CertificateError("chmod \(serverKey): \(String(cString: strerror(errno)))")
        }
    }

    /// When root, gives the directory and its files to `postgres` (see the type's comment).
    private func handOverToServerAccount() throws {
        guard geteuid() == 0 else { return }
        var account = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        // The reentrant form: tests run in parallel, and getpwnam shares one static buffer.
        guard getpwnam_r("postgres", &account, &buffer, buffer.count, &found) == 0, found != nil else {
            throw CertificateError("running as root, but there is no `postgres` user")
        }
        let (uid, gid) = (account.pw_uid, account.pw_gid)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).map { directory + "/" + $0 }
        for path in [directory] + files where chown(path, uid, gid) != 0 {
            throw CertificateError("chown \(path) to postgres: \(String(cString: strerror(errno)))")
        }
    }

    /// Runs `openssl` to completion. Its output goes to a file rather than a pipe, so that no other
    /// process that happens to inherit the pipe could keep us reading forever.
    private static func openssl(_ arguments: [String], in directory: String) throws {
        let outputPath = directory + "/openssl.out"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
            let output = FileHandle(forWritingAtPath: outputPath)
        else { throw CertificateError("cannot create \(outputPath)") }
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        try? output.close()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let captured = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw CertificateError(
                "`openssl \(arguments.joined(separator: " "))` failed (\(process.terminationStatus)):\n\(captured)"
            )
        }
    }
}
