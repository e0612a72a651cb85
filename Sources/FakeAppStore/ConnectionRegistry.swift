import NIOCore
import Synchronization

/// The stand-in's open client connections, so `shutdown()` can close them
/// (closing the listener alone leaves keep-alive connections serving).
final class ConnectionRegistry: Sendable {
    private let open = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// Tracks a new connection until it closes.
    func register(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        open.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = open.withLock { $0.removeValue(forKey: key) }
        }
    }

    /// Closes every tracked connection and waits until they are all closed.
    func closeAll() async {
        let channels = open.withLock { Array($0.values) }
        for channel in channels {
            channel.close(promise: nil)
        }
        for channel in channels {
            try? await channel.closeFuture.get()
        }
    }
}
