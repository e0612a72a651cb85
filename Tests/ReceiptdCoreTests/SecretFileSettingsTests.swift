import Foundation
import Testing

@testable import ReceiptdCore

/// `APPLE_SHARED_SECRET_FILE`: how systemd's `LoadCredential=` hands the secret over.
@Suite struct SecretFileSettingsTests {
    static let secret = "0123456789abcdef-shared"

    /// Writes `contents` to a fresh temporary file, runs `body` with its path, removes it.
    func withFile(_ contents: String, _ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-secret-\(UUID().uuidString)")
            .path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    @Test(arguments: ["", "\n", "\r\n", "\n\n"])
    func theSecretIsReadWithoutItsTrailingNewline(ending: String) throws {
        try withFile(Self.secret + ending) { path in
            let settings = try ReceiptdSettings(completing: ["APPLE_SHARED_SECRET_FILE": path])
            #expect(settings.apple.sharedSecret == Self.secret)
        }
    }

    @Test func anUnreadableFileNamesTheVariable() {
        let path = "/nonexistent/receiptd/apple_shared_secret"
        #expect {
            _ = try ReceiptdSettings(completing: ["APPLE_SHARED_SECRET_FILE": path])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.variable == "APPLE_SHARED_SECRET_FILE" && error.description.contains(path)
        }
    }

    @Test func aDirectoryOrAnEmptyFileIsAnError() throws {
        for path in [FileManager.default.temporaryDirectory.path] {
            #expect(throws: ConfigurationError.self) {
                _ = try ReceiptdSettings(completing: ["APPLE_SHARED_SECRET_FILE": path])
            }
        }
        try withFile("\n") { path in
            #expect(throws: ConfigurationError.self) {
                _ = try ReceiptdSettings(completing: ["APPLE_SHARED_SECRET_FILE": path])
            }
        }
    }

    @Test func bothWaysAtOnceIsAnErrorThatShowsNeitherSecret() throws {
        try withFile(Self.secret) { path in
            #expect {
                _ = try ReceiptdSettings(completing: [
                    "APPLE_SHARED_SECRET_FILE": path, "APPLE_SHARED_SECRET": "inline-secret",
                ])
            } throws: { error in
                let text = "\(error)"
                return (error as? ConfigurationError)?.variable == "APPLE_SHARED_SECRET_FILE"
                    && !text.contains(Self.secret) && !text.contains("inline-secret")
            }
        }
    }

    @Test func theInlineVariableStillWorksAlone() throws {
        #expect(try ReceiptdSettings(completing: ["APPLE_SHARED_SECRET": "inline"]).apple.sharedSecret == "inline")
        #expect(try ReceiptdSettings(completing: ["APPLE_SHARED_SECRET_FILE": ""]).apple.sharedSecret == nil)
    }
}
