/// `lines` with the date of every `saved 2026-11-24 10:00` as `saved <date>`: when saved to-dos were
/// saved differs from run to run.
func withoutDates(_ lines: [String]) -> [String] {
    lines.map { $0.replacing(#/saved \d{4}-\d{2}-\d{2} \d{2}:\d{2}/#, with: "saved <date>") }
}
