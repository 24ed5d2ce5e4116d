/// Hands out tokens, objects whose lifetimes a test follows through weak references, and counts how
/// many are still alive: a value holding a token is alive as long as its token is.
final class LifetimeWatch: Sendable {
    final class Token: Sendable {}

    private struct WeakToken: Sendable {
        weak var token: Token?
    }

    private let watched = Locked<[WeakToken]>([])

    func token() -> Token {
        let token = Token()
        watched.withLock { $0.append(WeakToken(token: token)) }
        return token
    }

    var liveCount: Int { watched.withLock { watched in watched.count { $0.token != nil } } }
}
