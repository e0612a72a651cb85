/// How a result was written.
package enum JobRecording: Sendable, Equatable {
    /// Written; the job is now in this state.
    case recorded(JobState)
    /// Not written: the job is no longer `running` under this daemon (superseded, cancelled, or its lease lapsed).
    case abandoned
}
