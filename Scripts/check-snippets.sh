#!/usr/bin/env bash
# Compiles every ```swift block of the READMEs and of the DocC catalog's pages against the library, so
# that a renamed API cannot leave a document that no longer compiles, and runs the blocks marked
# expect-output, comparing what they print with the `// Prints "…"` comments the document shows.
#
# Scripts/DocsTool turns the documents into a package under .build-snippets/package: one executable per
# snippet (a block plus the blocks marked `continue` after it), depending on this repository by path, and
# one more per document compiled whole (README.md: all its blocks in order, as a reader pastes them). The
# prelude, the blocks marked `prelude` (Getting started's Post, store and controller), is a file beside
# each program that does not declare Post itself; a program that does must declare it exactly as the
# prelude does. The package is built once; errors and warnings point at the documents' own lines. Marks,
# in an HTML comment on the line before a fence: `<!-- snippet: skip REASON -->`,
# `<!-- snippet: continue -->`, `<!-- snippet: expect-output -->`, `<!-- snippet: prelude -->` (see
# DEVELOPMENT.md, "Documentation").
#
# Usage: Scripts/check-snippets.sh [DOCUMENT...]
#        (default: README.md, Example/README.md and the catalog's .md files)
set -euo pipefail

cd "$(dirname "$0")/.."
repository="$(pwd)"
scratch=.build-snippets
package="$scratch/package"

header() {
    echo
    echo "==== $* ===="
}

if [[ $# -gt 0 ]]; then
    documents=("$@")
else
    documents=(README.md Example/README.md)
    while IFS= read -r page; do documents+=("$page"); done \
        < <(find Sources/LiveResults/LiveResults.docc -name '*.md' | LC_ALL=C sort)
fi

header "Snippets: extract the swift blocks of ${#documents[@]} documents"
mkdir -p "$scratch/tool"
swiftc -swift-version 6 -o "$scratch/tool/docs-tool" -module-cache-path "$scratch/tool/module-cache" Scripts/DocsTool/*.swift
"$scratch/tool/docs-tool" generate-snippets "$repository" "$package" "${documents[@]}"

header "Snippets: compile them against the library (one package, one executable per snippet)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! swift build --package-path "$package" 2>&1 | tee "$log"; then
    echo
    echo "error: a snippet does not compile. The snippets concerned, with their documents' line numbers:" >&2
    "$scratch/tool/docs-tool" explain-diagnostics "$package" "$log"
    exit 1
fi
# Warnings in the documents (or the prelude) fail too: a deprecated API has no place in them.
warnings="$(grep -F ': warning:' "$log" | grep -F -e "$repository/README.md" -e "$repository/Example/README.md" -e "$repository/Sources/LiveResults/LiveResults.docc/" -e "/$package/Sources/" | sort -u || true)"
if [[ -n "$warnings" ]]; then
    echo
    echo "error: the snippets have warnings:" >&2
    "$scratch/tool/docs-tool" explain-diagnostics "$package" "$log"
    echo "$warnings" >&2
    exit 1
fi

header "Snippets: run those marked expect-output and compare their output with the documents"
"$scratch/tool/docs-tool" verify-output "$package" "$(swift build --package-path "$package" --show-bin-path)"
