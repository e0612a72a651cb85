extension DispatcherStateMachine {
    /// One claim statement the machine asks for; its result comes back with it.
    struct Claim: Sendable, Equatable {
        /// Most jobs to take.
        var limit: Int
        /// Which due jobs qualify.
        var filter: ClaimFilter
        /// The paused API this claim probes (`limit` 1, only jobs needing it); `nil` for a batch.
        var probe: StoreAPI?
    }
}
