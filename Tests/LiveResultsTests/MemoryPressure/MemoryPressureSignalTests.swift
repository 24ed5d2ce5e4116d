import LiveResults
import Testing

@Suite("Memory pressure signal", .tags(.concurrent))
struct MemoryPressureSignalTests {
    @Test func sendCallsEverySubscriberUntilItsSubscriptionEnds() {
        let signal = MemoryPressureSignal()
        let counts = Locked([0, 0])
        let first = signal.subscribe { counts.withLock { $0[0] += 1 } }
        var second: EventSubscription? = signal.subscribe { counts.withLock { $0[1] += 1 } }
        #expect(signal.subscriberCount == 2)
        signal.send()
        #expect(counts.withLock { $0 } == [1, 1])

        first.cancel()
        signal.send()
        #expect(counts.withLock { $0 } == [1, 2])

        _ = second
        second = nil  // releasing a subscription cancels it
        signal.send()
        #expect(counts.withLock { $0 } == [1, 2])
        #expect(signal.subscriberCount == 0)
    }

    @Test func aHandlerMaySubscribeAndSendAgain() {
        let signal = MemoryPressureSignal()
        let count = Locked(0)
        let inner = Locked<EventSubscription?>(nil)
        let outer = signal.subscribe {
            let isFirst = count.withLock { count in
                count += 1
                return count == 1
            }
            if isFirst {
                inner.withLock { $0 = signal.subscribe { count.withLock { $0 += 10 } } }
                signal.send()
            }
        }
        signal.send()
        #expect(count.withLock { $0 } == 12, "the outer handler twice, the inner one once")
        outer.cancel()
    }
}
