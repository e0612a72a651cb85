import Testing

@testable import ReceiptdConsole

/// The console's `HTML`: every interpolated value is escaped; only `HTML` goes in as markup.
@Suite struct HTMLTests {
    @Test func textBecomesEscapedText() {
        let error = "<script>alert('x')</script> & more"
        let html: HTML = "<td>\(error)</td>"
        #expect(html.rendered == "<td>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more</td>")
    }

    @Test func quotesCannotLeaveAnAttribute() {
        let id = #"o1" onmouseover="alert(1)"#
        let single = "o1' autofocus x='"
        let html: HTML = "<a href=\"/order?id=\(id)\" title='\(single)'>x</a>"
        #expect(
            html.rendered
                == "<a href=\"/order?id=o1&quot; onmouseover=&quot;alert(1)\" title='o1&#39; autofocus x=&#39;'>x</a>"
        )
    }

    @Test func numbersOptionalsAndNestedHTML() {
        let missing: String? = nil
        let present: String? = "<b>"
        let text = "a<b"
        let inner: HTML = "<em>\(text)</em>"
        let html: HTML = "\(42) \(missing) \(present) \(inner) \([inner, inner])"
        #expect(html.rendered == "42  &lt;b&gt; <em>a&lt;b</em> <em>a&lt;b</em><em>a&lt;b</em>")
        #expect(HTML.joined([inner, "<br>"], separator: ", ").rendered == "<em>a&lt;b</em>, <br>")
    }

    @Test func theSignInFormEscapesTheNameItShowsAgain() {
        let form = ConsoleServer.signInForm(name: "\"><script>x</script>", error: "Wrong name or password.")
        #expect(form.rendered.contains(#"value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;""#))
        #expect(!form.rendered.contains("<script>"))
        #expect(form.rendered.contains(#"<p id="signin-error" class="error" role="alert">Wrong name or password.</p>"#))
        #expect(!ConsoleServer.signInForm(name: "", error: nil).rendered.contains("signin-error"))
    }
}
