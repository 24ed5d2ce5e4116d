extension SelectList {
    /// Parses `text`, the value of `select=`, as PostgREST does.
    ///
    /// ```swift
    /// try SelectList(parsing: "*")                                  // every column
    /// try SelectList(parsing: "id,label:title")                     // id, and title under the key "label"
    /// try SelectList(parsing: "id,assignee:people!inner(id,name)")  // an embedded resource
    /// ```
    ///
    /// The grammar is PostgREST's: items separated by commas (spaces around them ignored); `*`; a column
    /// `alias:name`, with a JSON path (`->key`, `->>0`), a cast (`::text`) and an aggregate (`.sum()`,
    /// `count()`); an embedded resource `alias:relation!hint!inner(…)` (or `!left`), nested to any depth; a
    /// spread `...relation(…)`. A name is letters, digits, `_`, `$`, spaces and single dashes, or any text in
    /// double quotes (`\"` and `\\` inside). As in PostgREST, what follows a closing parenthesis at the top
    /// level is not read.
    ///
    /// - Throws: ``PostgRESTError`` `PGRST100` with PostgREST's message, `"failed to parse select parameter
    ///   (TEXT)" (line 1, column N)`, N the position of the first character that does not fit.
    /// - Complexity: O(*m*) for *m* characters.
    public init(parsing text: String) throws(PostgRESTError) {
        var parser = _SelectParser(text)
        guard let items = parser.forest() else {
            throw parser.error(parsing: "select parameter", text: text)
        }
        self.init(items)
    }
}

/// A recursive-descent reading of PostgREST's `select=` grammar. Each rule returns `nil` when it does not
/// match, leaving `index` where the caller restores it from; the furthest position any rule reached is kept
/// for the error, as Parsec reports it.
struct _SelectParser {
    let characters: [Character]
    var index = 0
    /// The furthest position a rule failed at, and what it expected there.
    var furthest = 0
    var expected = "field name (* or [a..z0..9_$])"

    init(_ text: String) {
        characters = Array(text)
    }

    var current: Character? { index < characters.count ? characters[index] : nil }

    /// The error for the furthest failure.
    func error(parsing what: String, text: String) -> PostgRESTError {
        let unexpected =
            furthest < characters.count ? "unexpected \"\(characters[furthest])\"" : "unexpected end of input"
        return .parse(what, text: text, column: furthest + 1, details: "\(unexpected) expecting \(expected)")
    }

    /// Records a failure at the current position.
    mutating func fail<T>(expecting: String) -> T? {
        if index >= furthest {
            if index > furthest {
                expected = expecting
            } else if !expected.contains(expecting) {
                expected = expected + " or " + expecting
            }
            furthest = index
        }
        return nil
    }

    mutating func skipSpaces() {
        while let character = current, character == " " || character == "\t" { index += 1 }
    }

    mutating func take(_ literal: String) -> Bool {
        let literal = Array(literal)
        guard index + literal.count <= characters.count, Array(characters[index..<index + literal.count]) == literal
        else { return false }
        index += literal.count
        return true
    }

    func isAhead(_ literal: String) -> Bool {
        let literal = Array(literal)
        return index + literal.count <= characters.count
            && Array(characters[index..<index + literal.count]) == literal
    }

    // MARK: Rules

    /// `tree (',' tree)*`, or nothing.
    mutating func forest() -> [SelectItem]? {
        let start = index
        guard let first = tree() else {
            // Nothing read: an empty list, as `sepBy` gives; something read and then a mismatch: the error.
            if furthest > start { return nil }
            index = start
            return []
        }
        var items = [first]
        while true {
            let before = index
            skipSpaces()
            guard take(",") else {
                index = before
                return items
            }
            skipSpaces()
            guard let item = tree() else { return nil }
            items.append(item)
        }
    }

    /// A spread, an embedded resource or a field.
    mutating func tree() -> SelectItem? {
        let start = index
        // A head tried and given up (Parsec's `try`) does not name the error when the field after it reads
        // further: the field's error is the one reported, as PostgREST reports it.
        let (furthestBefore, expectedBefore) = (furthest, expected)
        var head = relationHead(spread: true)
        if head == nil {
            index = start
            head = relationHead(spread: false)
        }
        if var resource = head {
            guard take("(") else { return fail(expecting: "\"(\"") }
            guard let items = forest() else { return nil }
            guard take(")") else { return fail(expecting: "\")\" or \",\"") }
            resource.select = SelectList(items)
            return .embedded(resource)
        }
        index = start
        (furthest, expected) = (furthestBefore, expectedBefore)
        return field()
    }

    /// `alias:name!hint!inner` before a `(`, or `...name!hint` for a spread.
    mutating func relationHead(spread: Bool) -> EmbeddedResource? {
        skipSpaces()
        var alias: String?
        if spread {
            guard take("...") else { return fail(expecting: "\"...\"") }
        } else {
            alias = self.alias()
        }
        guard let name = fieldName(), spread || name != "count" else { return nil }
        var hint: String?
        var join: EmbeddedJoin?
        for _ in 0..<2 where take("!") {
            if take("left") {
                join = join ?? .left
            } else if take("inner") {
                join = join ?? .inner
            } else if let name = fieldName() {
                hint = hint ?? name
            } else {
                return nil
            }
        }
        guard current == "(" else { return fail(expecting: "\"(\"") }
        return EmbeddedResource(
            relation: name, alias: alias, hint: hint, join: join, isSpread: spread, select: SelectList([]))
    }

    /// `name:` (not `name::`), or nothing with `index` unchanged.
    mutating func alias() -> String? {
        let start = index
        if let name = fieldName(), take(":"), current != ":" { return name }
        index = start
        return nil
    }

    /// `*`, `alias:count()::cast`, or `alias:name->path::cast.aggregate()::cast`, followed by `)`, `,` or the end.
    mutating func field() -> SelectItem? {
        skipSpaces()
        let start = index
        if take("*") {
            if atEnd() {
                skipSpaces()
                return .all
            }
            _ = fail(expecting: "\")\", \",\" or end of input") as Void?
        }
        index = start
        let alias = self.alias()
        let afterAlias = index
        if take("count()"), let cast = self.cast() {
            if atEnd() {
                skipSpaces()
                return .column(SelectColumn(name: "*", alias: alias, aggregate: .count, aggregateCast: cast))
            }
        }
        index = afterAlias
        guard let name = fieldName() else { return nil }
        guard let path = jsonPath() else { return nil }
        skipSpaces()
        guard let cast = self.cast() else { return nil }
        var aggregate: SelectAggregate?
        let beforeAggregate = index
        if take(".") {
            aggregate = SelectAggregate.allCases.first { take($0.rawValue + "()") }
            if aggregate == nil { index = beforeAggregate }
        }
        guard let aggregateCast = self.cast() else { return nil }
        guard atEnd() else {
            return fail(
                expecting: "letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input")
        }
        skipSpaces()
        return .column(
            SelectColumn(
                name: name, alias: alias, jsonPath: path, cast: cast, aggregate: aggregate,
                aggregateCast: aggregateCast))
    }

    /// Whether `)`, `,` or the end comes next (after spaces, which a field's trailing lexeme takes).
    mutating func atEnd() -> Bool {
        let start = index
        skipSpaces()
        let end = current == nil || current == ")" || current == ","
        index = start
        return end
    }

    /// `.some(nil)` when no `::` comes next; `::identifier`; `nil` (a failure) for `::` without an identifier.
    mutating func cast() -> String?? {
        guard take("::") else { return .some(nil) }
        guard let identifier = identifier() else { return fail(expecting: "letter or digit") }
        return .some(identifier)
    }

    /// `->key`, `->>0`, … (none is an empty path); `nil` (a failure) for an arrow without a key or an index.
    mutating func jsonPath() -> [JSONPathStep]? {
        var steps: [JSONPathStep] = []
        while true {
            let asText: Bool
            if take("->>") {
                asText = true
            } else if take("->") {
                asText = false
            } else {
                return steps
            }
            if let index = jsonIndex() {
                steps.append(JSONPathStep(asText: asText, operand: index, isIndex: true))
            } else if let key = jsonKey() {
                steps.append(JSONPathStep(asText: asText, operand: key, isIndex: false))
            } else {
                return fail(expecting: "\"-\", digit or any non reserved character different from: .,>()")
            }
        }
    }

    /// `-?digits` followed by `->`, `::`, `.`, `,` or the end; `+` or `-` then the digits.
    mutating func jsonIndex() -> String? {
        let start = index
        let sign = take("-") ? "-" : "+"
        var digits = ""
        while let character = current, ("0"..."9").contains(character) {
            digits.append(character)
            index += 1
        }
        guard !digits.isEmpty else {
            if sign == "-" { _ = fail(expecting: "digit") as Void? }
            index = start
            return nil
        }
        guard current == nil || isAhead("->") || isAhead("::") || isAhead(".") || isAhead(",") else {
            _ = fail(expecting: "digit, \"->\", \"::\", \".\", \",\" or end of input") as Void?
            index = start
            return nil
        }
        return sign + digits
    }

    /// A JSON key: quoted, or runs of characters other than `(-:.,>)` joined by single dashes.
    mutating func jsonKey() -> String? {
        if current == "\"" { return quoted() }
        return dashSeparated { parser in
            var run = ""
            while let character = parser.current, !"(-:.,>)".contains(character) {
                run.append(character)
                parser.index += 1
            }
            return run.isEmpty ? nil : run.trimmingSpaces()
        }
    }

    /// A field name: quoted, or identifiers joined by single dashes.
    mutating func fieldName() -> String? {
        if current == "\"" { return quoted() }
        guard let name = dashSeparated({ $0.identifier() }) else {
            return fail(expecting: "field name (* or [a..z0..9_$])")
        }
        return name
    }

    /// Letters, digits, `_`, spaces and `$`, without the spaces around them.
    mutating func identifier() -> String? {
        var run = ""
        while let character = current,
            character.isLetter || ("0"..."9").contains(character) || "_ $".contains(character)
        {
            run.append(character)
            index += 1
        }
        return run.isEmpty ? nil : run.trimmingSpaces()
    }

    /// `part ('-' part)*`, a dash not followed by `>`.
    mutating func dashSeparated(_ part: (inout _SelectParser) -> String?) -> String? {
        guard let first = part(&self) else { return nil }
        var parts = [first]
        while current == "-", !isAhead("->") {
            index += 1
            guard let next = part(&self) else { return nil }
            parts.append(next)
        }
        return parts.joined(separator: "-")
    }

    /// `"…"`, with `\` escaping the next character.
    mutating func quoted() -> String? {
        let start = index
        guard take("\"") else { return nil }
        var text = ""
        while let character = current {
            index += 1
            if character == "\"" { return text }
            if character == "\\" {
                guard let escaped = current else { break }
                text.append(escaped)
                index += 1
            } else {
                text.append(character)
            }
        }
        index = characters.count
        let failure: String? = fail(expecting: "\"\\\"\"")
        index = start
        return failure
    }
}

extension String {
    /// The string without the spaces and tabs around it.
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
