import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP client to 127.0.0.1 (from any loopback address) for tests that misbehave on purpose: connect and say nothing,
/// drip a request byte by byte, and see exactly when the server closes the connection.
final class RawTCPClient {
    private var descriptor: Int32
    /// Everything read so far.
    private(set) var received = ""

    /// Connects to `port` on 127.0.0.1, from `source` when given: another loopback address (127.0.0.2, …; Linux
    /// routes all of 127/8 to lo) is another peer to the server.
    init(port: Int, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                close()
                throw POSIXErrorCode(rawValue: code).map { POSIXError($0) } ?? POSIXError(.EIO)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard descriptor >= 0, connected == 0 else {
            let code = errno
            close()
            throw POSIXErrorCode(rawValue: code).map { POSIXError($0) } ?? POSIXError(.EIO)
        }
    }

    deinit { close() }

    /// Closes our end.
    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Sends `text`; false once the connection is closed or reset. Never raises SIGPIPE.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes {
            Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) == bytes.count
        }
    }

    /// Reads until `marker` has arrived; false if the connection ended or `timeout` passed first.
    func read(until marker: String, within timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !received.contains(marker) {
            switch readSome() {
            case .data: continue
            case .closed: return false
            case .nothing:
                guard ContinuousClock.now < deadline else { return false }
                try await Task.sleep(for: Self.pollInterval)
            }
        }
        return true
    }

    /// True once the server has closed the connection (end of file or reset) within `timeout`.
    func waitForClose(within timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch readSome() {
            case .data: continue
            case .closed: return true
            case .nothing:
                guard ContinuousClock.now < deadline else { return false }
                try await Task.sleep(for: Self.pollInterval)
            }
        }
    }

    /// Waits by sleeping, not in poll(2): a blocked thread of the shared pool could be the one the server needs.
    private static let pollInterval = Duration.milliseconds(10)

    private enum ReadResult { case data, closed, nothing }

    /// Reads what has come, without waiting.
    private func readSome() -> ReadResult {
        var descriptorPoll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptorPoll, 1, 0) > 0 else { return .nothing }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return .closed }
        received += String(decoding: buffer[..<count], as: UTF8.self)
        return .data
    }
}
