import Foundation
import LiveResults

/// Turns to-dos, lists and change sets into lines of text, the same in the scripted demo and in
/// the interactive mode.
///
/// A list shows each section with its index and each displayed to-do with its index path, so that
/// the change sets, which speak in display index paths, can be checked by eye:
///
/// ```text
///   changes: moved #2 from 1.1 to 2.1; updated #2 at 2.1
///   authors requested in one batch: ben
///   authors arrived: updated #7 at 1.0; updated #2 at 2.1
///   section 1 "Home"
///     1.0  #7 Call plumber (p1, by Ben Okafor)
///   section 2 "Work" (collapsed, 3 to-dos hidden)
/// ```
///
/// While the controller is paused, the change line says the changes are held, and the list says it is
/// the one frozen at the pause.
///
/// A list's first fetch says where its to-dos come from, and an optimistic edit what it showed before
/// its write, and what undid it when the write failed:
///
/// ```text
///   showing 3 to-dos saved 2026-11-24 10:00 (refreshing…)
///   refreshed from the store: inserted #4 at 1.0
///   shown at once: updated #2 at 0.0
///   write failed: simulated failure; rolled back: updated #2 at 0.0
/// ```
///
/// A change set of more than ``maximumChanges`` changes is cut short, so that a thousand inserts make
/// one readable line; a list is cut short only when asked.
public enum TodoFormatter {
    /// The changes a change set's line shows before it says how many more there are.
    public static let maximumChanges = 20

    /// `#7 Call plumber (p1, by Ben Okafor)`, `#8 Buy stamps (p2, by zoe (unknown author))` when no
    /// author is stored under its `authorID`, or `#5 Mow lawn (p3)` without `authorID`.
    ///
    /// - Parameters:
    ///   - author: The to-do's author, as the association gave it.
    ///   - isPaused: Whether the controller is paused: a missing author then shows as
    ///     `by zoe (not available while paused)`, since the association gives the author of a to-do's
    ///     current version, not of the one frozen at the pause.
    public static func describe(_ item: TodoItem, author: Author?, whilePaused isPaused: Bool = false) -> String {
        let missing = isPaused ? "not available while paused" : "unknown author"
        let name = item.authorID.map { id in ", by " + (author?.name ?? "\(id) (\(missing))") } ?? ""
        return "#\(item.id) \(item.title) (p\(item.priority)\(name))"
    }

    /// `5 to-dos in 3 projects`, or `1 to-do in 1 project`.
    public static func summary(of snapshot: FetchedResultsSnapshot<TodoItem>) -> String {
        "\(count(snapshot.count, "to-do")) in \(count(snapshot.sections.count, "project"))"
    }

    /// `3 to-dos`, or `1 to-do`.
    static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `2026-11-24 10:00`, in the local time zone: when saved to-dos were saved.
    public static func describe(savedAt date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    /// `1.0`: the section, then the item.
    public static func describe(_ indexPath: IndexPath) -> String {
        "\(indexPath.section).\(indexPath.item)"
    }

    /// The lines of a listing: its updates (only the notes unless `showsChanges`), the authors it
    /// requested and received, `  paused: the list as it was at the pause` while paused, then the list,
    /// cut short after `maximumRows` to-dos.
    public static func lines(for listing: TodoListing, showsChanges: Bool = true, maximumRows: Int = .max)
        -> [String]
    {
        (showsChanges ? lines(for: listing.updates, whilePaused: listing.isPaused) : notes(in: listing.updates))
            + authorLines(for: listing.authorUpdates)
            + (listing.isPaused ? ["  paused: the list as it was at the pause"] : [])
            + rows(of: listing, maximumRows: maximumRows)
    }

    /// The sections and displayed to-dos of `listing`, one per line, or `  (no to-dos)`; a collapsed
    /// section as `  section 2 "Work" (collapsed, 3 to-dos hidden)`; after the first `maximumRows`
    /// to-dos, `  … 980 to-dos not listed here` instead of the others displayed.
    ///
    /// - Complexity: O(*s* + *r*) for *s* sections and *r* to-dos shown.
    public static func rows(of listing: TodoListing, maximumRows: Int = .max) -> [String] {
        let sections = listing.sections
        guard !sections.isEmpty else { return ["  (no to-dos)"] }
        var lines: [String] = []
        var listed = 0
        for (index, section) in sections.enumerated() where listed < maximumRows {
            let state =
                section.isCollapsed ? " (collapsed, \(count(section.numberOfHiddenObjects, "to-do")) hidden)" : ""
            lines.append("  section \(index) \"\(section.name)\"\(state)")
            for (item, todo) in section.objects.prefix(maximumRows - listed).enumerated() {
                let indexPath = IndexPath(item: item, section: index)
                lines.append("    \(describe(indexPath))  \(listing.describe(todo))")
                listed += 1
            }
        }
        let displayed = sections.reduce(0) { $0 + $1.objects.count }
        if listed < displayed { lines.append("  … \(count(displayed - listed, "to-do")) not listed here") }
        return lines
    }

    /// `  changes: inserted section 0 "Errands"; inserted #8 at 0.0`, or `  changes: none`.
    ///
    /// Section changes come first, then item changes: deletions, insertions, moves, updates.
    public static func line(for changes: ChangeSet<TodoItem>) -> String {
        "  changes: \(describe(changes))"
    }

    /// `inserted section 0 "Errands"; inserted #8 at 0.0`, or `none`; after the first ``maximumChanges``
    /// changes, `… 980 more changes` instead of the others.
    public static func describe(_ changes: ChangeSet<TodoItem>) -> String {
        let parts = changes.sectionChanges.map(describe) + changes.itemChanges.map(describe)
        guard parts.count > maximumChanges else { return parts.isEmpty ? "none" : parts.joined(separator: "; ") }
        return (parts.prefix(maximumChanges) + ["… \(count(parts.count - maximumChanges, "more change"))"])
            .joined(separator: "; ")
    }

    /// `deleted section 1 "Garden"`.
    public static func describe(_ change: SectionChange) -> String {
        switch change.kind {
        case .insert(let index): "inserted section \(index) \"\(change.name)\""
        case .delete(let index): "deleted section \(index) \"\(change.name)\""
        case .update(let index): "updated section \(index) \"\(change.name)\""
        }
    }

    /// `moved #2 from 1.1 to 2.1`.
    public static func describe(_ change: ItemChange<TodoItem>) -> String {
        switch change.kind {
        case .insert(let indexPath): "inserted #\(change.id) at \(describe(indexPath))"
        case .delete(let indexPath): "deleted #\(change.id) from \(describe(indexPath))"
        case .move(let from, let to): "moved #\(change.id) from \(describe(from)) to \(describe(to))"
        case .update(let indexPath): "updated #\(change.id) at \(describe(indexPath))"
        }
    }

    /// One line per update: skipped values, diagnostics and where the to-dos come from first, then the
    /// change sets, or a line saying there was none (see ``changes(in:whilePaused:)``).
    public static func lines(for updates: [TodoListUpdate], whilePaused isPaused: Bool = false) -> [String] {
        notes(in: updates) + changes(in: updates, whilePaused: isPaused)
    }

    /// `  skipped "todo.6": …` for each skipped value, `  controller: …` for each diagnostic,
    /// `  authors requested in one batch: …` for each author request, and where a first fetch's to-dos
    /// come from: `  showing 3 to-dos saved 2026-11-24 10:00 (refreshing…)` then
    /// `  refreshed from the store: …`, or `  no saved to-dos to show first: read from the store`.
    public static func notes(in updates: [TodoListUpdate]) -> [String] {
        updates.compactMap(note(for:))
    }

    private static func note(for update: TodoListUpdate) -> String? {
        switch update {
        case .skipped(let issue): "  skipped \(issue)"
        case .diagnostic(let text): "  controller: \(text)"
        case .authorsRequested(let ids): "  authors requested in one batch: \(ids.joined(separator: ", "))"
        case .showingSaved(let shown, let savedAt):
            "  showing \(count(shown, "to-do")) saved \(describe(savedAt: savedAt)) (refreshing…)"
        case .refreshed(let changes):
            "  refreshed from the store: \(changes.isEmpty ? "nothing changed" : describe(changes))"
        case .noSavedResults: "  no saved to-dos to show first: read from the store"
        case .changed, .shownAtOnce, .rolledBack: nil
        }
    }

    /// The updates while authors were read, in order: each request, and each arrival as
    /// `  authors arrived: updated #7 at 1.0; …`.
    public static func authorLines(for updates: [TodoListUpdate]) -> [String] {
        updates.compactMap { update in
            if case .changed(let changes) = update {
                "  authors arrived: \(describe(changes))"
            } else {
                note(for: update)
            }
        }
    }

    /// One line per change set, in order: `  changes: …`, or for an optimistic edit
    /// `  shown at once: …` and, if its write failed, `  write failed: REASON; rolled back: …`. If there
    /// was none, `  changes: none`, or, `isPaused`, `  changes: held until "resume"`: a paused controller
    /// delivers nothing, whatever changed. A refresh of saved to-dos says what changed in its note.
    public static func changes(in updates: [TodoListUpdate], whilePaused isPaused: Bool = false) -> [String] {
        let lines = updates.compactMap { changeLine(for: $0, whilePaused: isPaused) }
        let refreshed = updates.contains { if case .refreshed = $0 { true } else { false } }
        guard lines.isEmpty, !refreshed else { return lines }
        return [isPaused ? #"  changes: \#(held)"# : line(for: ChangeSet())]
    }

    private static func changeLine(for update: TodoListUpdate, whilePaused isPaused: Bool) -> String? {
        switch update {
        case .changed(let changes):
            line(for: changes)
        case .shownAtOnce(let changes):
            "  shown at once: \(describe(changes))"
        case .rolledBack(let changes, let reason):
            "  write failed: \(reason); rolled back: \(isPaused && changes.isEmpty ? held : describe(changes))"
        case .skipped, .diagnostic, .authorsRequested, .showingSaved, .refreshed, .noSavedResults:
            nil
        }
    }

    /// What a paused list says of its changes.
    private static let held = #"held until "resume""#
}
