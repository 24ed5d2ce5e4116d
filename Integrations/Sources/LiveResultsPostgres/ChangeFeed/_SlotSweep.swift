/// When a running ``PostgresChangeFeed`` looks for the temporary slots of feeds that are gone, and which of those it
/// drops: a value owned by the reading task (as ``_ReadPacing`` is), whose transitions take the time on the feed's
/// clock and return what the task does next.
///
/// How a slot's owner is told from a dead one:
///
/// - Only the feed's own naming is considered: `liveresults_tmp_<pid>_<hex>` in the feed's database
///   (``PostgresChangeFeed/temporarySlotPattern``). A ``PostgresChangeFeed/Slot/named(_:)`` slot cannot take such a
///   name (the feed refuses it), so a slot a user named is never a candidate.
/// - A feed that reads a temporary slot holds, on the connection that reads it, a session advisory lock keyed by the
///   slot's name, taken before it touches the slot. A slot is *unowned* when PostgreSQL says it is not active and no
///   session holds or waits for that lock (`pg_locks`). The lock lives exactly as long as the owner's connection:
///   PostgreSQL releases it when the backend ends, whether the process exited, crashed or was killed.
/// - Unowned is not yet gone: between a lost connection and the next one a live feed holds neither the slot nor the
///   lock, for up to its reconnection back-off (10 s at most by default). Time is the only thing that tells a feed
///   that comes back from one that will not, so a slot is dropped only once every look for ``Timing/grace`` found it
///   unowned, at the same confirmed position (a feed that came back and read in between would have moved it), and
///   the sweeping feed kept its own connection all that while (a look it could not make might have seen the owner).
/// - Looks are apart: an owner whose every connection lasted less than the time between two looks, again and again
///   for longer than the grace, on a log that does not move, would be taken for gone. Such a feed reads nothing
///   anyway; when it gets a connection that lasts, it finds its slot gone, creates another, and its tables refetch.
/// - The drop itself takes the slot's advisory lock for its transaction only (`pg_try_advisory_xact_lock`) and
///   checks again that the slot is inactive at that position: an owner that reconnects at that moment waits for the
///   lock, then finds its slot gone and creates another (its subscribers refetch; nothing is lost), and a drop that
///   loses the race to the owner changes nothing.
struct _SlotSweep: Sendable, Equatable {
    /// How often the feed looks, and how long a slot must stay unowned.
    struct Timing: Sendable, Equatable {
        /// The time between two looks.
        var interval: Duration
        /// How long a slot must be found unowned, at every look, before it is dropped.
        var grace: Duration

        /// The timing of a feed whose reconnections wait at most `maximumReconnectDelay`: a look every 5 seconds, and a
        /// grace of 15 seconds, or that delay plus 5 seconds when it is longer. A feed takes the other processes'
        /// feeds to wait as long as its own; with the defaults (10 s at most), a dead process's slot is dropped within
        /// about 21 seconds of its end (the next look, up to 5 s later, then the grace, and a second of lateness).
        static func forFeed(maximumReconnectDelay: Duration) -> Timing {
            Timing(interval: .seconds(5), grace: max(.seconds(15), maximumReconnectDelay + .seconds(5)))
        }
    }

    /// A slot a look found unowned, and the position it was confirmed up to (empty when it never was).
    struct Unowned: Sendable, Hashable {
        var slot: String
        var position: String
    }

    /// A slot found unowned at every look since `since`, at `position`.
    struct Sighting: Sendable, Equatable {
        var position: String
        var since: Duration
    }

    /// A slot to drop, and how long it has been found unowned.
    struct Drop: Sendable, Equatable {
        var slot: Unowned
        var unownedFor: Duration
    }

    /// Where the sweep is.
    enum State: Sendable, Equatable {
        /// The next look is due at `due`; `unowned` holds the slots every look since their sighting found unowned.
        case waiting(due: Duration, unowned: [String: Sighting])
        /// A look that was due at `due` is being made.
        case looking(due: Duration, unowned: [String: Sighting])
    }

    /// What a step of the reading task does about the sweep.
    enum StepAction: Sendable, Equatable {
        case none
        /// Look for unowned slots, and hand what was found to ``found(_:now:)``.
        case look
    }

    let timing: Timing
    private(set) var state: State

    /// A sweep whose first look is due at once: a slot left by a process that ended before this feed started is
    /// found at the run's first step.
    init(timing: Timing, now: Duration) {
        self.timing = timing
        state = .waiting(due: now, unowned: [:])
    }

    /// A step of the reading task (its housekeeping, at least every second or so): whether a look is due.
    mutating func step(now: Duration) -> StepAction {
        guard case .waiting(let due, let unowned) = state, now >= due else { return .none }
        state = .looking(due: due, unowned: unowned)
        return .look
    }

    /// The look found `found` (the unowned temporary slots of the database, but the feed's own).
    ///
    /// - Returns: The slots to drop: found unowned at the same position at every look for at least ``Timing/grace``.
    ///   The others are kept, or sighted from now; a slot not found (owned again, or gone) is forgotten.
    ///
    /// A look is dated when it was due, or at most ``lateness`` before it ran: the reading task's steps come at
    /// least every second or so, and a look is late by up to that. So a slot found unowned at one look and at the
    /// looks that follow for the grace is dropped at the look due a grace after the first, not at the one after it:
    /// with the defaults, within about 21 seconds of its owner's end, not 26. Looks keep their cadence (each due an
    /// interval after the last one was) unless one ran later than that.
    mutating func found(_ found: [Unowned], now: Duration) -> [Drop] {
        guard case .looking(let due, let previous) = state else { return [] }
        let lookedAt = max(due, now - Self.lateness)
        var unowned: [String: Sighting] = [:]
        var drops: [Drop] = []
        for slot in found {
            guard let sighting = previous[slot.slot], sighting.position == slot.position else {
                unowned[slot.slot] = Sighting(position: slot.position, since: lookedAt)
                continue
            }
            if lookedAt - sighting.since >= timing.grace {
                drops.append(Drop(slot: slot, unownedFor: lookedAt - sighting.since))
            } else {
                unowned[slot.slot] = sighting
            }
        }
        let next = due + timing.interval
        state = .waiting(due: next > now ? next : now + timing.interval, unowned: unowned)
        return drops
    }

    /// The most a look is taken to have run after it was due.
    static let lateness = Duration.seconds(1)

    /// The reading task has a new connection (after a lost one, or a look that failed with it): the slots found so
    /// far are forgotten, since an owner may have come back while this feed could not look, and the next look is
    /// due at once.
    mutating func reconnected(now: Duration) {
        state = .waiting(due: now, unowned: [:])
    }
}
