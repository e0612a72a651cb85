/// A notification that could not be sent to systemd's `NOTIFY_SOCKET`.
package struct SystemdNotifyError: Error, CustomStringConvertible, Equatable {
    /// The socket address as given in `NOTIFY_SOCKET`.
    package var socket: String
    /// What went wrong (an `errno` description, or an unusable address).
    package var problem: String

    /// Creates an error.
    package init(socket: String, problem: String) {
        self.socket = socket
        self.problem = problem
    }

    /// "NOTIFY_SOCKET=…: problem".
    package var description: String { "NOTIFY_SOCKET=\(socket): \(problem)" }
}
