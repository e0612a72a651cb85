extension AppStoreStandIn {
    /// `http://HOST:PORT`, the App Store Server API's production base: the daemon asks
    /// `{base}/inApps/v1/transactions/{id}`. The port is right once ``start()`` returned.
    package var serverAPIURL: String {
        baseURL
    }

    /// `http://HOST:PORT/sandbox`, the App Store Server API's sandbox base.
    package var serverAPISandboxURL: String {
        baseURL + "/sandbox"
    }

    /// Registers a transaction for Get Transaction Info, replacing any with the same id and
    /// restarting its call count; call n (0-based, both environments) of it uses `script[n]`.
    package func register(_ payload: SignedTransactionPayload, script: [ScriptStep]? = nil) {
        serverAPILedger.register(payload, script: script ?? [])
    }

    /// Registers one customer's transaction history for Get Transaction History: asking it for any of these
    /// transaction ids answers all of them that belong to the environment asked, in this order, a page at a time.
    package func register(history: [SignedTransactionPayload]) {
        serverAPILedger.register(history: history)
    }

    /// Every Server API call (Get Transaction Info and Get Transaction History) received so far, in arrival order.
    package func recordedServerAPIRequests() -> [RecordedServerAPIRequest] {
        serverAPILedger.records()
    }
}
