import ReceiptdCore
import Testing

@testable import ReceiptdConsole

/// `receiptd console`'s variables: RECEIPTD_CONSOLE_ADDR, RECEIPTD_CONSOLE_USERS_FILE, RECEIPTD_CONSOLE_INSECURE_COOKIES.
@Suite struct ConsoleSettingsTests {
    let users = ["RECEIPTD_CONSOLE_USERS_FILE": "/etc/receiptd/console-users"]

    @Test func defaultsAreLoopbackPort9470SecureCookiesAndTheIssuesLimits() throws {
        let settings = try ConsoleSettings(environment: users)
        #expect(settings.host == "127.0.0.1" && settings.port == 9470 && settings.address == "127.0.0.1:9470")
        #expect(settings.usersFile == "/etc/receiptd/console-users")
        #expect(!settings.insecureCookies)
        #expect(settings.sessionLifetime == .seconds(8 * 3600))
        #expect(settings.signInFailuresAllowed == 5 && settings.signInWindow == .seconds(60))
        #expect(settings.logLevel == .info && settings.logFormat == nil)
    }

    @Test(arguments: [
        ("0.0.0.0:8080", "0.0.0.0", 8080, "0.0.0.0:8080"), ("[::1]:9470", "::1", 9470, "[::1]:9470"),
        (":9000", "0.0.0.0", 9000, "0.0.0.0:9000"),
        ("console.internal:80", "console.internal", 80, "console.internal:80"),
        ("", "127.0.0.1", 9470, "127.0.0.1:9470"),
    ])
    func addressesAreParsed(text: String, host: String, port: Int, address: String) throws {
        var environment = users
        environment["RECEIPTD_CONSOLE_ADDR"] = text
        let settings = try ConsoleSettings(environment: environment)
        #expect(settings.host == host && settings.port == port && settings.address == address)
    }

    @Test(arguments: [
        ("RECEIPTD_CONSOLE_ADDR", "9470"), ("RECEIPTD_CONSOLE_ADDR", "::1:9470"),
        ("RECEIPTD_CONSOLE_ADDR", "127.0.0.1:99999"), ("RECEIPTD_CONSOLE_INSECURE_COOKIES", "yes"),
        ("RECEIPTD_CONSOLE_INSECURE_COOKIES", "2"), ("RECEIPTD_LOG_LEVEL", "loud"), ("RECEIPTD_LOG_FORMAT", "xml"),
    ])
    func badValuesNameTheirVariable(variable: String, value: String) {
        var environment = users
        environment[variable] = value
        #expect {
            _ = try ConsoleSettings(environment: environment)
        } throws: { error in
            (error as? ConfigurationError)?.variable == variable && "\(error)".hasPrefix(variable)
        }
    }

    @Test func theUsersFileIsRequired() {
        for environment in [[:], ["RECEIPTD_CONSOLE_USERS_FILE": ""]] {
            #expect {
                _ = try ConsoleSettings(environment: environment)
            } throws: { error in
                (error as? ConfigurationError)?.variable == "RECEIPTD_CONSOLE_USERS_FILE"
            }
        }
    }

    @Test(arguments: [("1", true), ("true", true), ("TRUE", true), ("0", false), ("false", false)])
    func insecureCookiesTakeOneZeroTrueOrFalse(text: String, insecure: Bool) throws {
        var environment = users
        environment["RECEIPTD_CONSOLE_INSECURE_COOKIES"] = text
        #expect(try ConsoleSettings(environment: environment).insecureCookies == insecure)
    }
}
