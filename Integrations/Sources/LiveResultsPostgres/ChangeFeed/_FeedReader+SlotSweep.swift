import PostgresNIO

extension _FeedReader {
    /// When a look for unowned temporary slots is due (``_SlotSweep``), makes it on `connection`, and drops the slots
    /// found unowned for the sweep's grace, telling the feed's events of each.
    ///
    /// A drop that fails (the slot became active, or another feed dropped it first) is left to the next look; a look
    /// that fails throws, as any query of the step does: the connection is then replaced.
    mutating func sweepIfDue(on connection: _ClosedConnectionGuard) async throws {
        guard sweep.step(now: feed.clock.now) == .look else { return }
        // The lock's key is the one `prepareSlot(on:)` takes: a two-key advisory lock (objsubid 2), whose keys are
        // the hashes as signed integers, which pg_locks shows as oids.
        let rows = try await connection.query(
            """
            SELECT s.slot_name::text, coalesce(s.confirmed_flush_lsn::text, '') FROM pg_replication_slots s
            WHERE s.database = current_database() AND NOT s.active AND s.slot_name <> \(slotName)
            AND s.slot_name ~ \(PostgresChangeFeed.temporarySlotPattern)
            AND NOT EXISTS (
                SELECT FROM pg_locks l
                WHERE l.locktype = 'advisory' AND l.objsubid = 2
                AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND l.classid = hashtext('liveresults_slot')::oid AND l.objid = hashtext(s.slot_name)::oid)
            """)
        let found = try rows.map { row in
            let (slot, position) = try row.decode((String, String).self)
            return _SlotSweep.Unowned(slot: slot, position: position)
        }
        for drop in sweep.found(found, now: feed.clock.now) {
            let dropped = try? await connection.query(
                """
                SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
                WHERE slot_name = \(drop.slot.slot) AND database = current_database() AND NOT active
                AND coalesce(confirmed_flush_lsn::text, '') = \(drop.slot.position)
                AND pg_try_advisory_xact_lock(hashtext('liveresults_slot'), hashtext(slot_name))
                """)
            if let dropped, !dropped.isEmpty {
                feed.events?(.abandonedSlotDropped(slot: drop.slot.slot, unownedFor: drop.unownedFor))
            }
        }
    }
}
