import Dispatch
import Foundation
import HummingbirdBcrypt

extension ConsoleAuthentication {
    /// Checks `password` for `name` against the users file, within the failed sign-in limit. An unknown name is
    /// checked against a dummy hash, so it takes as long as a wrong password and cannot be told apart.
    ///
    /// Names are matched and counted in NFC: the failures count per matched user, and per normalized name for a
    /// name that matches nobody, whichever canonically equivalent spelling was typed.
    package func signIn(name typed: String, password: String) async -> SignInResult {
        let name = ConsoleUser.normalized(typed)
        guard throttle.admit(name, at: now()) else { return .throttled }
        // Byte equality of the NFC forms: exactly canonical equivalence, and the same test the throttle counts by.
        let user = users.first { ConsoleUser.normalized($0.name).utf8.elementsEqual(name.utf8) }
        // C strings end at NUL: "a\0b" would be checked as "a".
        let usable = user != nil && !password.utf8.contains(0)
        let matches = await Self.verify(password, hash: usable ? user?.passwordHash ?? dummyHash : dummyHash)
        // The actor may have served other requests meanwhile; the throttle counted this one as in flight.
        guard usable, matches, let user else {
            throttle.finish(name, succeeded: false, at: now())
            return .refused
        }
        throttle.finish(name, succeeded: true, at: now())
        return .signedIn(startSession(for: user))
    }

    /// `Bcrypt.verify` on a thread of its own: at cost 10 to 12 it takes a few hundred milliseconds of CPU, which
    /// must not block Swift's cooperative pool or the server's event loops.
    static func verify(_ password: String, hash: String) async -> Bool {
        await withCheckedContinuation { continuation in
            bcryptQueue.async { continuation.resume(returning: Bcrypt.verify(password, hash: hash)) }
        }
    }

    private static let bcryptQueue = DispatchQueue(label: "receiptd.console.bcrypt", attributes: .concurrent)

    /// A hash no password matches (its digest is not bcrypt's output for any salt we know), at the cost most of
    /// `users` have (12 when there are none): verifying it takes as long as verifying theirs.
    static func makeDummyHash(costLike users: [ConsoleUser]) -> String {
        let costs = Dictionary(grouping: users.map { ConsoleUsersFile.cost(of: $0.passwordHash) }, by: { $0 })
        let cost = costs.max { ($0.value.count, $0.key) < ($1.value.count, $1.key) }?.key ?? 12
        let twoDigits = cost < 10 ? "0\(cost)" : "\(cost)"
        return "$2b$\(twoDigits)$" + "Receiptd.Console.Unknown.Name.Dummy.Hash.For.Timing00"
    }
}
