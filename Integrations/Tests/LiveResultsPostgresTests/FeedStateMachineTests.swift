import Testing

@testable import LiveResultsPostgres

/// The change feed's shared state, one transition at a time, with no database: what each transition changes and
/// the actions it returns (the feed runs them after its lock), including the interleavings of subscriptions,
/// fetches and the reading task that the feed has to get right.
@Suite("PostgresChangeFeed: the state machine of subscriptions, fetches and the reading task")
struct FeedStateMachineTests {
    /// A table's identity, as a `PostgresLiveTable` gives it.
    final class Table: Sendable {}

    let table = Table()
    let other = Table()

    func subscription(of table: Table) -> _FeedSubscription {
        _FeedSubscription(
            table: ObjectIdentifier(table), qualifiedTable: "todos", idColumn: "id", deliver: { _ in },
            report: { _ in }, afterDeliveries: { $0() })
    }

    /// A machine with one subscription of `table`, whose run (1) has started its task, and has its first slot
    /// when `withSlot`.
    func running(withSlot: Bool = false) -> _FeedStateMachine {
        var machine = _FeedStateMachine()
        _ = machine.subscribe(subscription(of: table))
        #expect(machine.taskStarted(Task {}, run: 1) == nil)
        if withSlot { _ = machine.slotReady(run: 1, created: true, replaced: false) }
        return machine
    }

    func run(of machine: _FeedStateMachine) -> _FeedStateMachine.Run? {
        if case .running(let run) = machine.state { run } else { nil }
    }

    /// The reading task's phase, as text: `busy`, `busy(wake)`, `busy(written)`, `waiting`, `backOff`, `streaming`.
    func reader(of machine: _FeedStateMachine) -> String? {
        switch run(of: machine)?.reader {
        case nil: nil
        case .busy(false, false): "busy"
        case .busy(true, false): "busy(wake)"
        case .busy(false, true): "busy(written)"
        case .busy(true, true): "busy(wake, written)"
        case .waiting(_, backOff: false): "waiting"
        case .waiting(_, backOff: true): "backOff"
        case .streaming: "streaming"
        }
    }

    func opens(_ action: _FeedStateMachine.WakeAction, _ latch: _Latch<Void>) -> Bool {
        if case .openPause(let opened) = action { opened === latch } else { false }
    }

    func isNone(_ action: _FeedStateMachine.WakeAction) -> Bool {
        if case .none = action { true } else { false }
    }

    // MARK: Subscriptions and runs

    @Test("The first subscription starts run 1, awaiting its first slot; the next only wakes the reader")
    func subscribe() {
        var machine = _FeedStateMachine()
        let (first, action) = machine.subscribe(subscription(of: table))
        guard case .startReading(run: 1) = action else { Issue.record("\(action)"); return }
        #expect(run(of: machine)?.slot == .awaitingFirst)
        #expect(reader(of: machine) == "busy")
        let (second, again) = machine.subscribe(subscription(of: other))
        guard case .wake(let wake) = again else { Issue.record("\(again)"); return }
        #expect(isNone(wake))
        // A read is under way: the reader reads again at once after it, and looks the new table up.
        #expect(reader(of: machine) == "busy(wake)")
        #expect(first != second)
        #expect(machine.subscriptions.count == 2)
        #expect(machine.lastRun == 1)
    }

    @Test("A task started for a run is recorded; one for a run that already ended is given back to be cancelled")
    func taskStarted() {
        var machine = _FeedStateMachine()
        let (id, _) = machine.subscribe(subscription(of: table))
        let task = Task {}
        #expect(machine.taskStarted(task, run: 1) == nil)
        #expect(run(of: machine)?.task == task)
        // The run ends before its task is recorded: the task is cancelled by whoever started it.
        #expect(machine.unsubscribe(id)?.cancel == task)
        // Run 2 starts; run 1's task is recorded late, and run 2's not yet.
        _ = machine.subscribe(subscription(of: table))
        let late = Task {}
        #expect(machine.taskStarted(late, run: 1) == late)
        #expect(run(of: machine)?.task == nil)
    }

    @Test("Removing a subscription that is not the last keeps the run, and lets fetches waiting only for it go on")
    func unsubscribeNotLast() {
        var machine = running(withSlot: true)
        machine.subscriptions[0].relation = 7
        let (id, _) = machine.subscribe(subscription(of: table))
        let latch = _Latch<_SlotWait>()
        // The new subscription of the table is not looked up yet: the fetch waits.
        guard case .wait = machine.fetchStarting(of: ObjectIdentifier(table), latch: latch) else {
            Issue.record("the fetch did not wait"); return
        }
        let action = machine.unsubscribe(id)
        #expect(action?.cancel == nil)
        #expect(action?.resumeFetches.count == 1)
        #expect(action?.resumeFetches.first?.0 === latch)
        #expect(action?.resumeFetches.first?.1 == 1)
        #expect(run(of: machine)?.fetchWaiters.isEmpty == true)
        #expect(machine.unsubscribe(id) == nil)
    }

    @Test(
        "The last subscription ends the run while fetches and delivery waiters wait: all go on, the task is cancelled")
    func lastSubscriptionEnds() {
        var machine = _FeedStateMachine()
        let (first, _) = machine.subscribe(subscription(of: table))
        let (second, _) = machine.subscribe(subscription(of: other))
        let task = Task {}
        _ = machine.taskStarted(task, run: 1)
        // A fetch of the table whose subscription ends last, waiting for its lookup.
        let early = _Latch<_SlotWait>()
        _ = machine.fetchStarting(of: ObjectIdentifier(other), latch: early)
        _ = machine.slotReady(run: 1, created: true, replaced: false)
        let delivery = _Latch<_DeliveryWait>()
        #expect(machine.deliveryWaitStarting(of: ObjectIdentifier(other), through: 100, latch: delivery) != nil)
        #expect(machine.unsubscribe(first)?.resumeFetches.isEmpty == true)
        let action = machine.unsubscribe(second)
        #expect(action?.cancel == task)
        #expect(action?.resumeFetches.count == 1)
        #expect(action?.resumeFetches.first?.0 === early)
        #expect(action?.resumeFetches.first?.1 == nil)
        #expect(action?.endDeliveryWaits.count == 1)
        #expect(action?.endDeliveryWaits.first === delivery)
        guard case .idle = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(machine.subscriptions.isEmpty)
        #expect(!machine.awaitsDeliveries)
        // Without a run, a fetch goes on at once, without a slot, and wakes nothing.
        guard case .goOn(nil) = machine.fetchStarting(of: ObjectIdentifier(table), latch: _Latch()) else {
            Issue.record("a fetch waited for no run"); return
        }
        #expect(isNone(machine.wakeForFetch()))
        #expect(isNone(machine.writeAnnounced()))
    }

    @Test("A hold starts a run with no subscription; a subscription joins it; the hold keeps it after the last one")
    func holdKeepsTheRun() {
        var machine = _FeedStateMachine()
        let (hold, action) = machine.hold()
        guard case .startReading(run: 1) = action else { Issue.record("\(action)"); return }
        #expect(machine.subscriptions.isEmpty)
        #expect(run(of: machine)?.holds == [hold])
        let task = Task {}
        #expect(machine.taskStarted(task, run: 1) == nil)
        let (subscribed, joined) = machine.subscribe(subscription(of: table))
        guard case .wake = joined else { Issue.record("\(joined)"); return }
        #expect(machine.lastRun == 1)
        // The last subscription leaves: the hold keeps the run, and its task.
        #expect(machine.unsubscribe(subscribed)?.cancel == nil)
        #expect(run(of: machine)?.number == 1)
        #expect(machine.subscriptions.isEmpty)
        // The hold leaves last: the run ends, its task is cancelled; released twice, nothing more.
        #expect(machine.unsubscribe(hold)?.cancel == task)
        guard case .idle = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(machine.unsubscribe(hold) == nil)
    }

    @Test("Released before the last subscription, a hold keeps nothing going; two holds end the run together")
    func holdReleasedFirst() {
        var machine = running()
        let (hold, _) = machine.hold()
        #expect(machine.unsubscribe(hold)?.cancel == nil)
        #expect(run(of: machine)?.holds.isEmpty == true)
        #expect(machine.unsubscribe(0)?.cancel != nil, "the last subscription ends the run")
        let (first, _) = machine.hold()
        let (second, _) = machine.hold()
        #expect(machine.lastRun == 2)
        #expect(machine.unsubscribe(first)?.cancel == nil)
        guard case .running = machine.state else { Issue.record("one hold left, the run ended"); return }
        #expect(machine.unsubscribe(second) != nil)
        guard case .idle = machine.state else { Issue.record("\(machine.state)"); return }
    }

    @Test("A new run starts while the old task ends: the old run's calls change nothing in the new one")
    func newRunWhileOldTaskEnds() {
        var machine = _FeedStateMachine()
        let (id, _) = machine.subscribe(subscription(of: table))
        _ = machine.taskStarted(Task {}, run: 1)
        _ = machine.slotReady(run: 1, created: true, replaced: false)
        _ = machine.unsubscribe(id)
        let (_, action) = machine.subscribe(subscription(of: table))
        guard case .startReading(run: 2) = action else { Issue.record("\(action)"); return }
        let fetch = _Latch<_SlotWait>()
        _ = machine.fetchStarting(of: ObjectIdentifier(table), latch: fetch)
        _ = machine.wakeForFetch()
        #expect(reader(of: machine) == "busy(wake)")
        // The cancelled task of run 1 finishes its step.
        #expect(machine.slotReady(run: 1, created: true, replaced: true).invalidate.isEmpty)
        #expect(machine.attemptFailed(run: 1).isEmpty)
        #expect(machine.advanced(run: 1, to: 1_000).isEmpty)
        #expect(
            machine.pauseStarting(run: 1, requested: .seconds(1), readInterval: .milliseconds(20), pause: _Latch())
                == .readNow)
        machine.streamStarted(run: 1) {}
        machine.streamEnded(run: 1)
        #expect(run(of: machine)?.slot == .awaitingFirst)
        #expect(run(of: machine)?.readThrough == 0)
        #expect(run(of: machine)?.fetchWaiters.count == 1)
        // The wake asked for in run 2 is still there.
        #expect(reader(of: machine) == "busy(wake)")
        #expect(machine.lastSlot == 1)
        // Run 2's own slot is a new one.
        _ = machine.slotReady(run: 2, created: false, replaced: false)
        #expect(run(of: machine)?.slot == .ready(2))
    }

    // MARK: Fetches and the slot

    @Test("A fetch that arrives before the first slot waits; the slot and then the table's lookup let it go on")
    func fetchBeforeFirstSlot() {
        var machine = running()
        let subscription = machine.subscriptions[0]
        #expect(machine.awaitsFirstSlot)
        let latch = _Latch<_SlotWait>()
        guard case .wait(let wake) = machine.fetchStarting(of: ObjectIdentifier(table), latch: latch) else {
            Issue.record("the fetch did not wait"); return
        }
        #expect(isNone(wake))
        #expect(reader(of: machine) == "busy(wake)")
        #expect(machine.readyFetches().isEmpty)
        _ = machine.slotReady(run: 1, created: true, replaced: false)
        #expect(!machine.awaitsFirstSlot)
        // The slot exists, but the reading task has not looked the table up yet.
        #expect(machine.readyFetches().isEmpty)
        subscription.relation = 16_384
        let ready = machine.readyFetches()
        #expect(ready.count == 1)
        #expect(ready.first?.0 === latch)
        #expect(ready.first?.1 == 1)
        #expect(machine.readyFetches().isEmpty)
        // A later fetch of the looked-up table goes on at once.
        guard case .goOn(1) = machine.fetchStarting(of: ObjectIdentifier(table), latch: _Latch()) else {
            Issue.record("the fetch waited"); return
        }
    }

    @Test("The run's first slot attempt fails: waiting fetches go on without a slot, later ones too, until one exists")
    func firstAttemptFails() {
        var machine = running()
        let subscription = machine.subscriptions[0]
        let latch = _Latch<_SlotWait>()
        _ = machine.fetchStarting(of: ObjectIdentifier(table), latch: latch)
        let ready = machine.attemptFailed(run: 1)
        #expect(ready.count == 1)
        #expect(ready.first?.0 === latch)
        #expect(ready.first?.1 == nil)
        #expect(run(of: machine)?.slot == .firstAttemptFailed)
        #expect(!machine.awaitsFirstSlot)
        guard case .goOn(nil) = machine.fetchStarting(of: ObjectIdentifier(table), latch: _Latch()) else {
            Issue.record("the fetch waited"); return
        }
        // No slot, nothing to wait for.
        #expect(machine.deliveryWaitStarting(of: ObjectIdentifier(table), through: 1, latch: _Latch()) == nil)
        // The next attempt gets one; failures after that leave it.
        _ = machine.slotReady(run: 1, created: true, replaced: false)
        #expect(run(of: machine)?.slot == .ready(1))
        #expect(machine.attemptFailed(run: 1).isEmpty)
        #expect(run(of: machine)?.slot == .ready(1))
        subscription.relation = 1
        guard case .goOn(1) = machine.fetchStarting(of: ObjectIdentifier(table), latch: _Latch()) else {
            Issue.record("the fetch waited"); return
        }
    }

    @Test("A fetch's wait that ended (timed out, cancelled) is forgotten")
    func fetchWaitEnded() {
        var machine = running()
        let latch = _Latch<_SlotWait>()
        _ = machine.fetchStarting(of: ObjectIdentifier(table), latch: latch)
        machine.fetchWaitEnded(latch)
        #expect(run(of: machine)?.fetchWaiters.isEmpty == true)
        #expect(machine.attemptFailed(run: 1).isEmpty)
    }

    @Test("The slot found again keeps its number; a created one gets a new number and, replacing, invalidates")
    func slotReady() {
        var machine = running(withSlot: true)
        let subscription = machine.subscriptions[0]
        #expect(run(of: machine)?.slot == .ready(1))
        // A lost connection, the same slot found again.
        #expect(machine.slotReady(run: 1, created: false, replaced: false).invalidate.isEmpty)
        #expect(run(of: machine)?.slot == .ready(1))
        let delivery = _Latch<_DeliveryWait>()
        _ = machine.deliveryWaitStarting(of: ObjectIdentifier(table), through: 5, latch: delivery)
        let action = machine.slotReady(run: 1, created: true, replaced: true)
        #expect(run(of: machine)?.slot == .ready(2))
        #expect(action.invalidate.count == 1)
        #expect(action.invalidate.first === subscription)
        #expect(action.endDeliveryWaits.first === delivery)
        #expect(!machine.awaitsDeliveries)
    }

    @Test("A fetch's snapshot releases the subscriptions awaiting one; a second fetch waits for deliveries")
    func meet() {
        var machine = running(withSlot: true)
        let snapshot = _Snapshot(xmin: 10, xmax: 12, running: [])
        let first = machine.meet(table: ObjectIdentifier(table), snapshot: snapshot, slot: 1)
        #expect(first.meeting == .exact)
        // The reading task applies the snapshot at its next step: asked for at once.
        #expect(reader(of: machine) == "busy(wake)")
        let second = machine.meet(table: ObjectIdentifier(table), snapshot: snapshot, slot: 1)
        #expect(second.meeting == .waitForDeliveries)
        // A snapshot that sees less than the one that released the subscription: read again.
        let older = _Snapshot(xmin: 5, xmax: 8, running: [])
        #expect(machine.meet(table: ObjectIdentifier(table), snapshot: older, slot: 1).meeting == .readAgain)
        // Another table's subscriptions are not met.
        #expect(machine.meet(table: ObjectIdentifier(other), snapshot: snapshot, slot: 1).meeting == .exact)
        // Without a run, nothing to meet.
        var idle = _FeedStateMachine()
        #expect(idle.meet(table: ObjectIdentifier(table), snapshot: snapshot, slot: nil).meeting == .exact)
    }

    @Test("A fetch that met a replaced slot makes the subscription it releases refetch")
    func meetReplacedSlot() {
        var machine = running(withSlot: true)
        let subscription = machine.subscriptions[0]
        _ = machine.slotReady(run: 1, created: true, replaced: true)
        _ = machine.meet(table: ObjectIdentifier(table), snapshot: .none, slot: 1)
        // Released with invalidating: its next meeting reports no snapshot to trust.
        guard case .metBefore(nil) = subscription.meet(.none, invalidating: false) else {
            Issue.record("the release did not invalidate"); return
        }
    }

    @Test("Delivery waiters: registered with a slot, released once the run read through their position")
    func deliveries() {
        var machine = running(withSlot: true)
        let subscription = machine.subscriptions[0]
        let near = _Latch<_DeliveryWait>()
        let far = _Latch<_DeliveryWait>()
        #expect(machine.deliveryWaitStarting(of: ObjectIdentifier(table), through: 100, latch: near) != nil)
        #expect(machine.deliveryWaitStarting(of: ObjectIdentifier(other), through: 200, latch: far) != nil)
        #expect(machine.awaitsDeliveries)
        #expect(machine.advanced(run: 1, to: 99).isEmpty)
        let ready = machine.advanced(run: 1, to: 150)
        #expect(ready.count == 1)
        #expect(ready.first?.0 === near)
        #expect(ready.first?.1.count == 1)
        #expect(ready.first?.1.first === subscription)
        #expect(run(of: machine)?.readThrough == 150)
        // A position behind the one read changes nothing.
        #expect(machine.advanced(run: 1, to: 120).isEmpty)
        #expect(run(of: machine)?.readThrough == 150)
        machine.deliveryWaitEnded(far)
        #expect(!machine.awaitsDeliveries)
        // A waiter at a position already read is released at the next step; the other table has no subscription.
        let late = _Latch<_DeliveryWait>()
        _ = machine.deliveryWaitStarting(of: ObjectIdentifier(other), through: 150, latch: late)
        let now = machine.advanced(run: 1, to: 0)
        #expect(now.first?.0 === late)
        #expect(now.first?.1.isEmpty == true)
    }

    // MARK: The reading task's waits

    @Test("A wait after a read: as long as asked, a back-off when longer than the read interval; zero reads at once")
    func pauseStarting() {
        var machine = running(withSlot: true)
        let interval = Duration.milliseconds(20)
        let pause = _Latch<Void>()
        #expect(
            machine.pauseStarting(run: 1, requested: interval, readInterval: interval, pause: pause) == .wait(interval))
        #expect(reader(of: machine) == "waiting")
        #expect(!machine.isBackingOff)
        machine.pauseEnded(run: 1, pause: pause)
        #expect(reader(of: machine) == "busy")
        let long = _Latch<Void>()
        #expect(
            machine.pauseStarting(run: 1, requested: .seconds(1), readInterval: interval, pause: long)
                == .wait(.seconds(1)))
        #expect(reader(of: machine) == "backOff")
        #expect(machine.isBackingOff)
        machine.pauseEnded(run: 1, pause: long)
        #expect(machine.pauseStarting(run: 1, requested: .zero, readInterval: interval, pause: _Latch()) == .readNow)
        #expect(reader(of: machine) == "busy")
    }

    @Test("A wake during a read: the next wait is skipped, and only that one")
    func wakeDuringRead() {
        var machine = running(withSlot: true)
        #expect(isNone(machine.wakeForFetch()))
        #expect(reader(of: machine) == "busy(wake)")
        let interval = Duration.milliseconds(20)
        #expect(
            machine.pauseStarting(run: 1, requested: .seconds(1), readInterval: interval, pause: _Latch()) == .readNow)
        #expect(reader(of: machine) == "busy")
        #expect(
            machine.pauseStarting(run: 1, requested: interval, readInterval: interval, pause: _Latch())
                == .wait(interval))
    }

    @Test("A wake while the reader waits ends the wait; a wake after its wait ended changes nothing")
    func wakeWhileWaiting() {
        var machine = running(withSlot: true)
        let pause = _Latch<Void>()
        _ = machine.pauseStarting(run: 1, requested: .milliseconds(20), readInterval: .milliseconds(20), pause: pause)
        #expect(opens(machine.wakeForFetch(), pause))
        #expect(reader(of: machine) == "busy")
        // The reader then records the end of its wait: nothing to undo.
        machine.pauseEnded(run: 1, pause: pause)
        #expect(reader(of: machine) == "busy")
        // The end of another (older) wait does not end the current one.
        let current = _Latch<Void>()
        _ = machine.pauseStarting(run: 1, requested: .milliseconds(20), readInterval: .milliseconds(20), pause: current)
        machine.pauseEnded(run: 1, pause: pause)
        #expect(reader(of: machine) == "waiting")
    }

    @Test("wake() ends a back-off, not a wait of the read interval; during a read it caps the next wait")
    func writeAnnounced() {
        var machine = running(withSlot: true)
        let interval = Duration.milliseconds(20)
        let short = _Latch<Void>()
        _ = machine.pauseStarting(run: 1, requested: interval, readInterval: interval, pause: short)
        #expect(isNone(machine.writeAnnounced()))
        #expect(reader(of: machine) == "waiting")
        machine.pauseEnded(run: 1, pause: short)
        let long = _Latch<Void>()
        _ = machine.pauseStarting(run: 1, requested: .seconds(4), readInterval: interval, pause: long)
        #expect(opens(machine.writeAnnounced(), long))
        #expect(reader(of: machine) == "busy")
        // During a read: the write may have committed after the read began, so the next wait is the interval.
        #expect(isNone(machine.writeAnnounced()))
        #expect(reader(of: machine) == "busy(written)")
        #expect(
            machine.pauseStarting(run: 1, requested: .seconds(4), readInterval: interval, pause: _Latch())
                == .wait(interval))
        #expect(!machine.isBackingOff)
    }

    @Test("A replication stream: a fetch's wake goes to the stream, wake() does nothing; its end returns to reading")
    func stream() {
        var machine = running(withSlot: true)
        let woken = _Latch<Void>()
        machine.streamStarted(run: 1) { woken.open(with: ()) }
        #expect(machine.isStreaming)
        #expect(reader(of: machine) == "streaming")
        guard case .wakeStream(let wake) = machine.wakeForFetch() else {
            Issue.record("no wake for the stream"); return
        }
        wake()
        #expect(isNone(machine.writeAnnounced()))
        machine.streamEnded(run: 1)
        #expect(!machine.isStreaming)
        #expect(reader(of: machine) == "busy")
    }

    // MARK: The end of the feed's life

    @Test(
        "A shutdown ends the run going on: its task is cancelled and waited for, fetches and delivery waits go on")
    func shutDownRunning() {
        var machine = running(withSlot: true)
        let reader = run(of: machine)?.task
        let (hold, _) = machine.hold()
        // A fetch of a table whose subscription has not been looked up waits; another fetch waits for deliveries.
        _ = machine.subscribe(subscription(of: other))
        let fetch = _Latch<_SlotWait>()
        guard case .wait = machine.fetchStarting(of: ObjectIdentifier(other), latch: fetch) else {
            Issue.record("the fetch did not wait"); return
        }
        let delivery = _Latch<_DeliveryWait>()
        #expect(machine.deliveryWaitStarting(of: ObjectIdentifier(table), through: 100, latch: delivery) != nil)
        let action = machine.shutDown()
        #expect(reader != nil)
        #expect(action.cancel == reader)
        #expect(action.resumeFetches.count == 1)
        #expect(action.resumeFetches.first?.0 === fetch)
        #expect(action.resumeFetches.first?.1 == nil, "the fetch goes on without the feed")
        #expect(action.endDeliveryWaits.count == 1)
        #expect(action.endDeliveryWaits.first === delivery)
        #expect(machine.stoppingReaders.readers == [reader].compactMap { $0 })
        #expect(!machine.stoppingReaders.pending)
        guard case .shutDown = machine.state else { Issue.record("\(machine.state)"); return }
        #expect(machine.subscriptions.isEmpty)
        #expect(machine.stopping[1]?.reader == reader)
        // Its subscriptions and holds stay, and their removal changes nothing.
        #expect(machine.unsubscribe(0) == nil)
        #expect(machine.unsubscribe(hold) == nil)
    }

    @Test("After a shutdown, a subscription or a hold starts no run, and a fetch goes on at once without a slot")
    func nothingStartsAfterShutdown() {
        var machine = running()
        _ = machine.shutDown()
        let (id, action) = machine.subscribe(subscription(of: table))
        guard case .shutDown = action else { Issue.record("\(action)"); return }
        let (_, held) = machine.hold()
        guard case .shutDown = held else { Issue.record("\(held)"); return }
        #expect(machine.lastRun == 1)
        #expect(machine.subscriptions.isEmpty)
        #expect(machine.unsubscribe(id) == nil)
        guard case .goOn(nil) = machine.fetchStarting(of: ObjectIdentifier(table), latch: _Latch()) else {
            Issue.record("a fetch waited for a feed that was shut down"); return
        }
        #expect(isNone(machine.wakeForFetch()))
        // The reading task's calls change nothing.
        #expect(machine.slotReady(run: 1, created: true, replaced: false).invalidate.isEmpty)
        guard case .shutDown = machine.state else { Issue.record("\(machine.state)"); return }
    }

    @Test(
        "A shutdown waits for the reading tasks of runs that ended and still stop; one that finished is not waited for")
    func shutDownWaitsForStoppingRuns() {
        var machine = _FeedStateMachine()
        // Run 1 ends with its last subscription; its task is still dropping the slot.
        let (first, _) = machine.subscribe(subscription(of: table))
        let one = Task {}
        _ = machine.taskStarted(one, run: 1)
        _ = machine.unsubscribe(first)
        // Run 2 ends before its task was recorded: that task is pending until the feed records it, then cancelled,
        // and waited for too.
        let (second, _) = machine.subscribe(subscription(of: table))
        _ = machine.unsubscribe(second)
        #expect(machine.stoppingReaders.pending)
        let two = Task {}
        #expect(machine.taskStarted(two, run: 2) == two)
        #expect(!machine.stoppingReaders.pending)
        // Run 3 ends, and its task finishes.
        let (third, _) = machine.subscribe(subscription(of: table))
        _ = machine.taskStarted(Task {}, run: 3)
        _ = machine.unsubscribe(third)
        machine.readerFinished(run: 3)
        #expect(machine.shutDown().cancel == nil, "no run was going on")
        #expect(machine.stoppingReaders.readers == [one, two])
        // A second shutdown ends nothing; the tasks are waited for until they finish.
        #expect(machine.shutDown().cancel == nil)
        machine.readerFinished(run: 1)
        #expect(machine.stoppingReaders.readers == [two])
        machine.readerFinished(run: 2)
        #expect(machine.stoppingReaders.readers.isEmpty)
    }

    @Test("A shutdown that timed out cancels the slot drops under way, and those that start later")
    func shutdownTimedOut() {
        var machine = running()
        let reader = run(of: machine)?.task
        _ = machine.shutDown()
        let drop = Task {}
        #expect(machine.dropStarted(drop, run: 1) == nil, "the shutdown still waits: the drop goes on")
        #expect(machine.stopping[1]?.reader == reader)
        #expect(machine.stopping[1]?.drop == drop)
        #expect(machine.shutdownTimedOut() == [drop])
        #expect(machine.dropsAbandoned)
        // A reading task that reaches its drop only now (a query of its own outlived the timeout) drops nothing.
        let late = Task {}
        #expect(machine.dropStarted(late, run: 1) == late)
        machine.readerFinished(run: 1)
        #expect(machine.stopping.isEmpty)
        #expect(machine.stoppingReaders.readers.isEmpty)
    }
}
