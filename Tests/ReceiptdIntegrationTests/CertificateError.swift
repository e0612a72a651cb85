/// A failure to make the test certificates; carries openssl's output when it was openssl that failed.
struct CertificateError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
