import Foundation

@testable import ReceiptdCore

#if canImport(Glibc)
import Glibc
#endif

/// Plays systemd's side of `NOTIFY_SOCKET`: a bound AF_UNIX datagram socket whose messages tests read back.
final class DatagramReceiver: Sendable {
    /// The address as `NOTIFY_SOCKET` spells it: a path, or `@name` for the abstract namespace.
    let socket: String
    private let descriptor: Int32

    init(abstract: Bool) throws {
        let name = "receiptd-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        socket = abstract ? "@\(name)" : FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let address = try SystemdNotifier.address(for: socket)
        let bound = address.withSockaddr { bind(descriptor, $0, $1) }
        guard descriptor >= 0, bound == 0 else {
            throw SystemdNotifyError(socket: socket, problem: "bind failed: \(String(cString: strerror(errno)))")
        }
    }

    var environment: [String: String] { ["NOTIFY_SOCKET": socket] }

    /// The next datagram, or nil when none arrives in time. Polls without blocking the cooperative pool.
    func receive(timeout: Duration = .seconds(5)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count >= 0 { return String(decoding: buffer[..<count], as: UTF8.self) }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    deinit {
        close(descriptor)
        if !socket.hasPrefix("@") { unlink(socket) }
    }
}
