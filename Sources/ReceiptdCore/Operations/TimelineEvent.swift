/// One line of the order timeline: what happened, when, and its particulars.
package struct TimelineEvent: Sendable, Codable, Equatable {
    /// A named value of the event (`store status`, `transaction id`, …), shown as it is.
    package struct Field: Sendable, Codable, Equatable {
        /// The label.
        package var name: String
        /// The value (store text included: escaped where it is written).
        package var value: String
    }

    /// What it is about.
    package var kind: TimelineEventKind
    /// When it happened (ISO-8601, UTC).
    package var at: String
    /// One line saying what happened.
    package var title: String
    /// Its particulars, in order; empty values are left out.
    package var fields: [Field]
    /// What went wrong, when something did (a store error, a refusal).
    package var error: String?

    /// An event with the given values; fields whose value is `nil` or empty are dropped.
    package init(
        kind: TimelineEventKind,
        at: String,
        title: String,
        fields: [(String, String?)] = [],
        error: String? = nil
    ) {
        self.kind = kind
        self.at = at
        self.title = title
        self.fields = fields.compactMap { name, value in
            guard let value, !value.isEmpty else { return nil }
            return Field(name: name, value: value)
        }
        self.error = error.flatMap { $0.isEmpty ? nil : $0 }
    }
}
