import Hummingbird

extension ConsoleServer {
    /// The pages and their actions. (Stub of the shared base: the pages part of #23 replaces it.)
    func addPages(to router: Router<ConsoleRequestContext>) {}
}
