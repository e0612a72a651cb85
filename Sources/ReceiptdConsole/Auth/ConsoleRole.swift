/// What a console user may do.
package enum ConsoleRole: String, Sendable, Equatable, CaseIterable {
    /// Reads every page and performs the actions (retry, cancel, assign, replay).
    case `operator`
    /// Reads every page; every `POST` but signing out is refused with 403.
    case viewer
}
