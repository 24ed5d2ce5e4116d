import Testing

@testable import LiveResultsServing

/// The time `seconds` after the heartbeat clock started.
private func at(_ seconds: Int) -> Duration { .seconds(seconds) }

/// A stream's transitions, one test each (or a few, for a transition from several states), on the value alone, with
/// times chosen by the test: what wakes the writer, what waits for it, and when a heartbeat is due.
@Suite("Stream state machine")
struct StreamStateMachineTests {
    typealias State = _StreamState

    /// A stream with a 10 s heartbeat that started at 0 and whose writer read its first updates.
    static func started() -> State {
        var state = State(at: at(0), heartbeat: .seconds(10))
        #expect(state.next(at: at(0), wrote: false) == .pollUpdates)
        return state
    }

    /// A stream whose writer waits, silent since `silentSince`.
    static func waiting(silentSince: Int = 0) -> State {
        var state = started()
        #expect(state.next(at: at(silentSince), wrote: true) == nil)
        #expect(state.state == .waiting(silentSince: at(silentSince)))
        return state
    }

    @Test("a new stream has its updates due: the writer polls them first")
    func start() {
        var state = State(at: at(5), heartbeat: nil)
        #expect(state.state == .writing(.init(updates: true), silentSince: at(5)))
        #expect(state.next(at: at(5), wrote: false) == .pollUpdates)
        #expect(state.next(at: at(5), wrote: false) == nil)
        #expect(state.state == .waiting(silentSince: at(5)))
    }

    @Test("next: the end first, then the source's status, the updates, and a heartbeat last")
    func nextOrder() {
        var state = Self.started()
        #expect(state.sourceChanged(available: false) == nil)
        #expect(state.updatesReady() == nil)
        #expect(state.tick(at: at(10)) == nil)
        #expect(state.next(at: at(10), wrote: false) == .source(available: false))
        #expect(state.next(at: at(10), wrote: false) == .pollUpdates)
        #expect(state.next(at: at(10), wrote: false) == .heartbeat)
        #expect(state.next(at: at(10), wrote: true) == nil)
        #expect(state.updatesReady() == .pollUpdates)
        #expect(state.end() == nil)
        #expect(state.next(at: at(11), wrote: true) == .end)
    }

    @Test("next after a write: the silence starts again, and a heartbeat due meanwhile is dropped")
    func nextAfterWrite() {
        var state = Self.started()
        #expect(state.tick(at: at(12)) == nil)
        #expect(state.state == .writing(.init(heartbeat: true), silentSince: at(0)))
        // The write ended at 13: the stream was not silent.
        #expect(state.next(at: at(13), wrote: true) == nil)
        #expect(state.state == .waiting(silentSince: at(13)))
        #expect(state.tick(at: at(22)) == nil)
        #expect(state.tick(at: at(23)) == .heartbeat)
    }

    @Test("next after an update: the updates are polled again, after the end and the source's status")
    func nextAfterUpdate() {
        var state = Self.started()
        #expect(state.next(at: at(1), wrote: true, pollAgain: true) == .pollUpdates)
        #expect(state.sourceChanged(available: true) == nil)
        #expect(state.next(at: at(2), wrote: true, pollAgain: true) == .source(available: true))
        #expect(state.next(at: at(2), wrote: true) == .pollUpdates)
        #expect(state.next(at: at(3), wrote: false) == nil)
        // Asked again while waiting, after an update: poll.
        #expect(state.next(at: at(3), wrote: true, pollAgain: true) == .pollUpdates)
        #expect(state.state == .writing(.init(), silentSince: at(3)))
        _ = state.end()
        #expect(state.next(at: at(4), wrote: true, pollAgain: true) == .end)
    }

    @Test("next without a write (updates polled and none found): the silence goes on")
    func nextWithoutWrite() {
        var state = Self.started()
        #expect(state.next(at: at(4), wrote: false) == nil)
        #expect(state.state == .waiting(silentSince: at(0)))
        #expect(state.tick(at: at(10)) == .heartbeat)
    }

    @Test("updates ready: wake a waiting writer, noted for a writing one, nothing once ended")
    func updatesReady() {
        var waiting = Self.waiting(silentSince: 3)
        #expect(waiting.updatesReady() == .pollUpdates)
        #expect(waiting.state == .writing(.init(), silentSince: at(3)))
        #expect(waiting.updatesReady() == nil)
        #expect(waiting.state == .writing(.init(updates: true), silentSince: at(3)))
        var ended = Self.waiting()
        _ = ended.end()
        #expect(ended.updatesReady() == nil)
        #expect(ended.state == .ended)
    }

    @Test("the source's status: wakes a waiting writer; the last one noted for a writing one")
    func sourceChanged() {
        var state = Self.waiting()
        #expect(state.sourceChanged(available: false) == .source(available: false))
        #expect(state.sourceChanged(available: true) == nil)
        #expect(state.sourceChanged(available: false) == nil)
        #expect(state.next(at: at(1), wrote: true) == .source(available: false))
        #expect(state.next(at: at(1), wrote: true) == nil)
        _ = state.end()
        #expect(state.sourceChanged(available: true) == nil)
    }

    @Test("a tick: a heartbeat once the stream was silent for the interval, not before, never without one")
    func tick() {
        var state = Self.waiting(silentSince: 2)
        #expect(state.tick(at: at(11)) == nil)
        #expect(state.state == .waiting(silentSince: at(2)))
        #expect(state.tick(at: at(12)) == .heartbeat)
        #expect(state.next(at: at(12), wrote: true) == nil)
        #expect(state.tick(at: at(21)) == nil)
        var silent = State(at: at(0), heartbeat: nil)
        _ = silent.next(at: at(0), wrote: false)
        #expect(silent.tick(at: at(1_000)) == nil)
        _ = state.end()
        #expect(state.tick(at: at(1_000)) == nil)
    }

    @Test("the end: wakes a waiting writer; a writing one gets it when it asks, and from then on")
    func end() {
        var waiting = Self.waiting()
        #expect(waiting.end() == .end)
        #expect(waiting.state == .ended)
        #expect(waiting.end() == nil)
        #expect(waiting.next(at: at(1), wrote: false) == .end)
        var writing = Self.started()
        #expect(writing.updatesReady() == nil)
        #expect(writing.end() == nil)
        #expect(writing.next(at: at(1), wrote: true) == .end)
    }
}
