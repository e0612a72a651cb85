import ReceiptdCore
import Testing

@Suite struct SecretRedactionTests {
    @Test func uriPasswordsAreMaskedRawAndDecoded() {
        let uri = "postgresql://receiptd:p%40ss%zzword@db.internal:5432/game?sslmode=require"
        let message = #"invalid percent-encoded token: "p%40ss%zzword""#
        #expect(SecretRedaction.redact(message, connectionString: uri) == #"invalid percent-encoded token: "***""#)
        let decoded = SecretRedaction.redact("for p@ss", connectionString: "postgres://u:p%40ss@h/db")
        #expect(decoded == "for ***")
    }

    @Test func queryAndKeywordPasswordsAreMasked() {
        #expect(
            SecretRedaction.redact("x topsecret y", connectionString: "postgresql://h/db?user=u&password=topsecret")
                == "x *** y"
        )
        #expect(
            SecretRedaction.redact("bad hunter2", connectionString: "host=h password=hunter2 dbname=d") == "bad ***"
        )
        #expect(
            SecretRedaction.redact("it's it\\'s 'a b'", connectionString: "host=h password = 'a b' user=u")
                == "it's it\\'s '***'"
        )
        #expect(SecretRedaction.redact("keep o'x", connectionString: "password='o\\'x'") == "keep ***")
    }

    @Test func messagesWithoutAPasswordAreUnchanged() {
        let message = #"connection to server at "127.0.0.1", port 1 failed"#
        #expect(SecretRedaction.redact(message, connectionString: "host=127.0.0.1 port=1") == message)
        #expect(SecretRedaction.redact(message, connectionString: "") == message)
        #expect(SecretRedaction.redact(message, connectionString: "postgresql://u@127.0.0.1:1/x") == message)
    }
}

/// The password of a malformed `DATABASE_URL`, which libpq quotes in its error, masked where the error is made.
@Suite struct ConnectionErrorRedactionTests {
    static let url = "postgresql://bob:p%zzSECRETpw@127.0.0.1:1/db"

    @Test func aBadPercentEscapeInThePasswordIsMasked() {
        let message = #"invalid percent-encoded token: "p%zzSECRETpw""#
        let redacted = SecretRedaction.redact(message, connectionString: Self.url)
        #expect(redacted == #"invalid percent-encoded token: "***""#)
        #expect(!redacted.contains("SECRETpw") && !redacted.contains("p%zz"))
    }

    /// libpq rejects the URL while parsing it, before any network I/O.
    @Test func connectThrowsAnErrorWithoutThePassword() async throws {
        let error = await #expect(throws: PostgresError.self) { try await PostgresConnection.connect(Self.url) }
        let text = try #require(error).description
        #expect(text.contains("invalid percent-encoded token"), "the libpq message is kept: \(text)")
        #expect(!text.contains("SECRETpw") && !text.contains("p%zz"), "\(text)")
    }
}

/// What libpq quotes from a connection string it reads otherwise than meant is masked whatever it holds.
@Suite struct MisreadConnectionStringTests {
    @Test func aParseErrorKeepsItsWordsAndMasksEveryQuotedPart() {
        let message = SecretRedaction.unparsable("invalid percent-encoded token: \"Xy?7%pq\"\n")
        #expect(
            message.hasPrefix("cannot parse the connection string: invalid percent-encoded token: \"***\""),
            "\(message)"
        )
        #expect(!message.contains("Xy") && !message.contains("7%pq"))
        let quoted = SecretRedaction.unparsable(#"missing "=" after "a"b" in connection info string"#)
        #expect(!quoted.contains("a\"b") && quoted.contains("in connection info string"), "\(quoted)")
    }

    @Test func aPasswordReadAsAnotherPartIsMaskedWhereverItIsQuoted() {
        // libpq reads `XyW` as the port: the password it parsed (none) is not the one written.
        let url = "postgresql://bob:XyW/SECRETpw@127.0.0.1:1/db"
        let message = SecretRedaction.connectionFailure(
            #"invalid integer value "XyW" for connection option "port""#,
            connectionString: url,
            parsedPassword: nil
        )
        #expect(!message.contains("XyW") && message.hasPrefix("invalid integer value"), "\(message)")
        // Read as written: only the password itself is masked, the rest of the message stays.
        let fine = SecretRedaction.connectionFailure(
            #"password authentication failed for user "bob" (Xy?7pq)"#,
            connectionString: "postgresql://bob:Xy?7pq@h/db",
            parsedPassword: "Xy?7pq"
        )
        #expect(fine == #"password authentication failed for user "bob" (***)"#)
    }
}
