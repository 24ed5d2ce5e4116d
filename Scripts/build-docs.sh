#!/usr/bin/env bash
# Builds the DocC documentation of LiveResults with the toolchain alone (no package plugin) and fails
# on any documentation problem:
#   1. builds the library and extracts its symbol graph (public symbols only, as users see them);
#   2. checks that every public symbol has a doc comment of its own, that every top-level symbol is
#      curated in a Topics group of the catalog, and that every article is listed (Scripts/DocsTool);
#   3. checks that every public method and property states its complexity (`- Complexity:`), but for the
#      exceptions by rule and by name that Scripts/DocsTool/ComplexityChecks.swift lists;
#   4. checks the reader's path: every relative link of the README (and of Example/README.md and
#      DEVELOPMENT.md) resolves, a link into the catalog names one of its articles, an anchor a heading;
#   5. converts Sources/LiveResults/LiveResults.docc with `docc convert --warnings-as-errors`, so an
#      unresolved symbol or article link, or a malformed doc comment, fails.
#
# Usage: Scripts/build-docs.sh [OUTPUT]   (default .build-docs/LiveResults.doccarchive)
# Preview: `docc preview Sources/LiveResults/LiveResults.docc --additional-symbol-graph-dir
# .build-docs/symbol-graphs` after one run. See DEVELOPMENT.md, "Documentation".
set -euo pipefail

cd "$(dirname "$0")/.."
scratch=.build-docs
output="${1:-$scratch/LiveResults.doccarchive}"
catalog=Sources/LiveResults/LiveResults.docc
graphs="$scratch/symbol-graphs"

header() {
    echo
    echo "==== $* ===="
}

header "Docs: build the library and extract its symbol graph"
# In the package's own build folder: after `swift build` (as in CI) the library is already built there.
swift build --target LiveResults
modules="$(swift build --target LiveResults --show-bin-path)/Modules"
triple="$(swiftc -print-target-info | sed -n 's/^ *"triple": "\(.*\)",$/\1/p' | head -n 1)"
if [[ -z "$triple" ]]; then
    echo "error: could not read the target triple from swiftc -print-target-info" >&2
    exit 1
fi
rm -rf "$graphs"
mkdir -p "$graphs"
# Public symbols only; members inherited from other modules' protocol extensions are left out (their
# module documents them); extension blocks are kept so that DocC shows what LiveResults adds to IndexPath.
swift-symbolgraph-extract \
    -module-name LiveResults \
    -I "$modules" \
    -target "$triple" \
    -minimum-access-level public \
    -skip-synthesized-members \
    -emit-extension-block-symbols \
    -output-dir "$graphs"
ls "$graphs"

header "Docs: every public symbol has a doc comment and a Topics group"
mkdir -p "$scratch/tool"
swiftc -swift-version 6 -o "$scratch/tool/docs-tool" -module-cache-path "$scratch/tool/module-cache" Scripts/DocsTool/*.swift
"$scratch/tool/docs-tool" check-symbols "$graphs" "$catalog"

header "Docs: every public method and property states its complexity"
"$scratch/tool/docs-tool" check-complexity "$graphs"

header "Docs: the reader's path (relative links of the READMEs resolve, into the catalog's articles)"
"$scratch/tool/docs-tool" check-links "$catalog" README.md Example/README.md DEVELOPMENT.md

header "Docs: docc convert (warnings are errors)"
rm -rf "$output"
docc convert "$catalog" \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name LiveResults \
    --fallback-bundle-identifier LiveResults \
    --output-path "$output" \
    --warnings-as-errors
echo "Documentation archive: $output"
