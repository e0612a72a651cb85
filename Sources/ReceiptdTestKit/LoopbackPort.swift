import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A free TCP port on the loopback, for a server a test or the benchmark starts (a throwaway cluster, a browser
/// driver, a daemon's intake).
package enum LoopbackPort {
    /// Binds a socket to 127.0.0.1:0 to let the kernel pick a free port, then releases it.
    package static func free() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else {
            throw TemporaryPostgresError(description: "socket() failed: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            throw TemporaryPostgresError(description: "could not pick a free port: \(String(cString: strerror(errno)))")
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
