/// A notification that could not be sent to systemd's `NOTIFY_SOCKET`.
public struct SystemdNotifyError: Error, CustomStringConvertible, Equatable {
    /// The socket address as given in `NOTIFY_SOCKET`.
    public var socket: String
    /// What went wrong (an `errno` description, or an unusable address).
    public var problem: String

    /// Creates an error.
    public init(socket: String, problem: String) {
        self.socket = socket
        self.problem = problem
    }

    /// "NOTIFY_SOCKET=…: problem".
    public var description: String { "NOTIFY_SOCKET=\(socket): \(problem)" }
}
