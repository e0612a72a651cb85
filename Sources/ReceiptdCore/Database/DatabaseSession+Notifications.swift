import CLibPQ
import Foundation

/// A `NOTIFY` received on a listening connection.
package struct DatabaseNotification: Sendable, Equatable {
    /// The channel name.
    package var channel: String
    /// The payload text.
    package var payload: String
}

extension DatabaseSession {
    /// Waits up to `timeoutMilliseconds` for notifications on the connection's socket and returns those that arrived.
    ///
    /// Blocks its thread in `poll(2)`, which is why it only runs on the connection's own thread.
    package func waitForNotifications(timeoutMilliseconds: Int32) throws -> [DatabaseNotification] {
        var received = drainNotifications()
        guard received.isEmpty else { return received }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw PostgresError(kind: .connection, message: "connection has no socket") }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        if ready < 0 && errno != EINTR {
            throw PostgresError(kind: .connection, message: "poll failed: \(String(cString: strerror(errno)))")
        }
        if ready > 0 {
            guard PQconsumeInput(handle) == 1 else {
                throw PostgresError(kind: .connection, message: String(cString: PQerrorMessage(handle)))
            }
            received = drainNotifications()
        }
        if PQstatus(handle) != CONNECTION_OK {
            throw PostgresError(kind: .connection, message: "listening connection lost")
        }
        return received
    }

    private func drainNotifications() -> [DatabaseNotification] {
        var received: [DatabaseNotification] = []
        while let notify = PQnotifies(handle) {
            let channel = String(cString: notify.pointee.relname)
            let payload = String(cString: notify.pointee.extra)
            PQfreemem(notify)
            received.append(DatabaseNotification(channel: channel, payload: payload))
        }
        return received
    }
}
