#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Speaks systemd's `sd_notify` protocol: datagrams such as `READY=1` to the AF_UNIX socket in `NOTIFY_SOCKET`.
///
/// Without `NOTIFY_SOCKET` (not started by systemd, or `Type=` is not `notify`) every call does nothing.
/// The socket may be a filesystem path or, starting with `@`, a name in Linux's abstract namespace.
package struct SystemdNotifier: Sendable {
    /// `NOTIFY_SOCKET`, or nil when notifications go nowhere.
    package let socket: String?

    /// Reads `NOTIFY_SOCKET` from `environment`.
    package init(environment: [String: String]) {
        socket = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// True when there is somewhere to send notifications.
    package var isEnabled: Bool { socket != nil }

    /// `READY=1`, with a status line.
    package func ready(status: String) throws(SystemdNotifyError) { try send("READY=1\nSTATUS=\(status)") }

    /// `STOPPING=1`, with a status line.
    package func stopping(status: String) throws(SystemdNotifyError) { try send("STOPPING=1\nSTATUS=\(status)") }

    /// `WATCHDOG=1`: still alive.
    package func watchdog() throws(SystemdNotifyError) { try send("WATCHDOG=1") }

    /// `STATUS=…`: a line `systemctl status` shows.
    package func status(_ text: String) throws(SystemdNotifyError) { try send("STATUS=\(text)") }

    /// Sends `message` (newline-separated `KEY=value` assignments) as one datagram; nothing when disabled.
    package func send(_ message: String) throws(SystemdNotifyError) {
        guard let socket else { return }
        let address = try Self.address(for: socket)
        let descriptor = Self.openDatagramSocket()
        guard descriptor >= 0 else { throw SystemdNotifyError(socket: socket, problem: Self.errnoText()) }
        defer { close(descriptor) }
        let bytes = Array(message.utf8)
        let sent = address.withSockaddr { pointer, length in
            bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Self.noSignal, pointer, length) }
        }
        guard sent == bytes.count else {
            throw SystemdNotifyError(socket: socket, problem: sent < 0 ? Self.errnoText() : "short write")
        }
    }

    // Module-qualified: inside this type, `socket` is the property.
    private static func openDatagramSocket() -> Int32 {
        #if canImport(Glibc)
        Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        Darwin.socket(AF_UNIX, SOCK_DGRAM, 0)
        #endif
    }

    #if canImport(Glibc)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let noSignal: Int32 = 0
    #endif

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
