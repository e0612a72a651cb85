extension AppStoreStandIn {
    /// `http://HOST:PORT`, the App Store Server API's production base: the daemon asks
    /// `{base}/inApps/v1/transactions/{id}`. The port is right once ``start()`` returned.
    public var serverAPIURL: String {
        baseURL
    }

    /// `http://HOST:PORT/sandbox`, the App Store Server API's sandbox base.
    public var serverAPISandboxURL: String {
        baseURL + "/sandbox"
    }

    /// Registers a transaction for Get Transaction Info, replacing any with the same id and
    /// restarting its call count; call n (0-based, both environments) of it uses `script[n]`.
    public func register(_ payload: SignedTransactionPayload, script: [ScriptStep]? = nil) {
        serverAPILedger.register(payload, script: script ?? [])
    }

    /// Every Get Transaction Info call received so far, in arrival order.
    public func recordedServerAPIRequests() -> [RecordedServerAPIRequest] {
        serverAPILedger.records()
    }
}
