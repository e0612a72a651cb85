#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SystemdNotifier {
    /// A `sockaddr_un` for `NOTIFY_SOCKET`, with the exact length the kernel must be given.
    struct Address {
        var storage = sockaddr_un()
        var length: socklen_t

        /// Calls `body` with the address as a `sockaddr` pointer and its length.
        func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
            withUnsafePointer(to: storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
            }
        }
    }

    /// Builds the address: a path is NUL-terminated; `@name` becomes abstract (a leading NUL, no terminator).
    static func address(for socket: String) throws(SystemdNotifyError) -> Address {
        var bytes = Array(socket.utf8)
        let isAbstract = bytes.first == UInt8(ascii: "@")
        guard isAbstract || bytes.first == UInt8(ascii: "/") else {
            throw SystemdNotifyError(
                socket: socket,
                problem: "neither an absolute path nor an abstract name starting with @"
            )
        }
        if isAbstract { bytes[0] = 0 }
        var address = Address(length: 0)
        let capacity = MemoryLayout.size(ofValue: address.storage.sun_path)
        // A path needs room for its terminating NUL; an abstract name uses every byte it is given.
        guard bytes.count + (isAbstract ? 0 : 1) <= capacity, bytes.count > 1 else {
            throw SystemdNotifyError(socket: socket, problem: "socket address length is out of range")
        }
        address.storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.storage.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        address.length = socklen_t(pathOffset + bytes.count + (isAbstract ? 0 : 1))
        return address
    }
}
