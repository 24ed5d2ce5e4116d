#!/usr/bin/env bash
# Builds the DocC catalogs of the integrations (Sources/<Product>/<Product>.docc, one per product) with the
# toolchain alone, and fails on any documentation problem:
#   1. `swift package dump-symbol-graph` builds the package (reusing Integrations/.build) and extracts the
#      symbol graphs of its modules, public symbols only (once, for every catalog);
#   2. `docc convert --warnings-as-errors` converts each catalog with its module's symbol graph, so an
#      unresolved symbol or article link, or a malformed doc comment, fails.
#
# Usage: Integrations/Scripts/build-docs.sh [OUTPUT_DIR]   (default Integrations/.build-docs; one
#        <Product>.doccarchive in it per product)
set -euo pipefail

cd "$(dirname "$0")/.."
scratch=.build-docs
output_dir="${1:-$scratch}"
products=(LiveResultsPostgres LiveResultsGRDB)

echo "==== Integrations docs: symbol graphs ===="
dump_log="$(swift package dump-symbol-graph --minimum-access-level public 2>&1)"
echo "$dump_log"
dump="$(echo "$dump_log" | sed -n 's/^Files written to //p' | tail -n 1)"
if [[ -z "$dump" || ! -d "$dump" ]]; then
    echo "error: swift package dump-symbol-graph did not say where it wrote the symbol graphs" >&2
    exit 1
fi

mkdir -p "$output_dir"
for product in "${products[@]}"; do
    graphs="$scratch/symbol-graphs-$product"
    rm -rf "$graphs"
    mkdir -p "$graphs"
    cp "$dump"/"$product"*.symbols.json "$graphs"/
    ls "$graphs"

    echo "==== Integrations docs: $product, docc convert (warnings are errors) ===="
    output="$output_dir/$product.doccarchive"
    rm -rf "$output"
    docc convert "Sources/$product/$product.docc" \
        --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$product" \
        --fallback-bundle-identifier "$product" \
        --output-path "$output" \
        --warnings-as-errors
    echo "Documentation archive: $output"
done
