import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP server that answers 200 with a body sent one byte at a time, far slower than any timeout:
/// the "slow drip" a misbehaving endpoint can produce. Serves connections until stopped.
final class DripServer: @unchecked Sendable {
    private let listener: Int32
    let port: Int
    private let stopped = ManagedAtomicFlag()

    init(byteInterval: useconds_t = 300_000) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(listener, pointer, length) == 0, listen(listener, 16) == 0 else { return -1 }
                return getsockname(listener, pointer, &length)
            }
        }
        guard bound == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve(byteInterval: byteInterval) }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)/verifyReceipt" }

    func stop() {
        stopped.set()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve(byteInterval: useconds_t) {
        while !stopped.isSet {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let worker = Thread { [self] in drip(to: client, byteInterval: byteInterval) }
            worker.start()
        }
    }

    private func drip(to client: Int32, byteInterval: useconds_t) {
        defer { close(client) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        _ = read(client, &buffer, buffer.count)
        let body = #"{"status":0,"receipt":{"in_app":[]}}"#
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        guard write(client, head, head.utf8.count) > 0 else { return }
        for byte in body.utf8 where !stopped.isSet {
            var single = byte
            guard write(client, &single, 1) == 1 else { return }
            usleep(byteInterval)
        }
    }
}

/// A flag set once, read from several threads.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
