import Foundation
import LiveResultsTestSupport
import NIOHTTP1
import TodoServer

/// A small deterministic generator (SplitMix64), so that a failing seed fails again.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random writes through the REST API: inserts, moves across projects and priorities, renames, deletes.
enum RandomWrites {
    static let projects = ["Home", "Work", "Later", "Errands"]

    static func step(_ server: RunningServer, ids: inout [Int64], random: inout SeededRandom) async throws {
        let roll = Int.random(in: 0..<10, using: &random)
        if ids.count < 4 || roll < 4 {
            let todo = try await HTTP.create(
                server, title: "t\(ids.count)", project: projects.randomElement(using: &random)!,
                priority: Int.random(in: 0..<4, using: &random))
            ids.append(todo.id)
        } else if roll < 8 {
            let id = ids.randomElement(using: &random)!
            let body: String
            switch Int.random(in: 0..<3, using: &random) {
            case 0: body = #"{"priority": \#(Int.random(in: 0..<4, using: &random))}"#
            case 1: body = #"{"project": "\#(projects.randomElement(using: &random)!)"}"#
            default: body = #"{"title": "renamed \#(Int.random(in: 0..<100, using: &random))"}"#
            }
            let reply = try await HTTP.send(.PATCH, "\(server.base)/todos/\(id)", json: body)
            guard reply.status == 200 else { throw TestFailure("PATCH: \(reply.status) \(reply.text)") }
        } else {
            let index = Int.random(in: 0..<ids.count, using: &random)
            let reply = try await HTTP.send(.DELETE, "\(server.base)/todos/\(ids.remove(at: index))")
            guard reply.status == 204 else { throw TestFailure("DELETE: \(reply.status) \(reply.text)") }
        }
    }
}
