#!/bin/bash
# Instructions and simulated last-level cache misses per event, from valgrind's cachegrind: within about
# 0.2% from run to run (the hash seed differs per process), so a change that saves 2% shows even on a
# busy machine where times vary by 20%.
#
#   bash cachegrind.sh [n] [events] [modes…]      defaults: 1000000 50000 events snapshots
#   CACHEPROBE=path bash cachegrind.sh …           counts that CacheProbe binary instead of building one
#
# Modes: events (each event a batch of its own), snapshots (the same, a snapshot taken after each),
# delegate, changes, observeChanges (the same, with one observer of that kind), updates (the same, with an
# open `updates()` stream read after each event; its opening and whole results, counted by the mode
# updatesBase, are subtracted instead); `observed` names the three observer modes with events, so that
# each observed count shows beside the unobserved one, and `wire` names events, delegate and updates.
# noop-delegate (a delegate that does nothing) and collapsible-delegate (the collapsible view of `Ratios views`
# with such a delegate) are the two sides of the view's target; `views` names them with events.
# paths delivers single updates along the paths of `Ratios paths` (paths-direct, paths-bus, paths-registry,
# paths-registry-groups; counted against pathsBase, which loads them and makes the updates).
# tied sorts items by two keys, `[priority, id]` with ten priorities, and updates priorities (its loading
# and events, counted by the mode tiedBase, are subtracted instead).
#
# Needs valgrind (3.19 works with a binary stripped of its debug information, which this script makes).
# The last-level cache simulated is 32 MB, 16-way, like the benchmark machine's L3. Counts are for the
# events alone: a run that only makes the events is subtracted. Cachegrind does not model hardware
# prefetching, so sequential misses (node copies, shifts in a leaf) cost less than their count suggests.
set -euo pipefail
cd "$(dirname "$0")"
n=${1:-1000000}
events=${2:-50000}
modes=("${@:3}")
[[ ${#modes[@]} -eq 0 ]] && modes=(events snapshots)
[[ "${modes[*]}" == observed ]] && modes=(events delegate changes observeChanges)
[[ "${modes[*]}" == wire ]] && modes=(events delegate updates)
[[ "${modes[*]}" == views ]] && modes=(events noop-delegate collapsible-delegate)
[[ "${modes[*]}" == paths ]] && modes=(paths-direct paths-bus paths-registry paths-registry-groups)
# The run each mode's count is taken relative to.
base() { case $1 in updates) echo updatesBase ;; tied) echo tiedBase ;; paths-*) echo pathsBase ;; *) echo generate ;; esac; }
bases=()
for mode in "${modes[@]}"; do
    [[ " ${bases[*]-} " == *" $(base "$mode") "* ]] || bases+=("$(base "$mode")")
done
# CACHEPROBE=path runs that binary instead of building one (to count an earlier build, say).
probe=${CACHEPROBE:-.build/release/CacheProbe}
if [[ -z ${CACHEPROBE:-} ]] && ! output=$(swift build -c release --product CacheProbe 2>&1); then
    echo "$output" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
objcopy --strip-debug "$probe" "$work/probe"
for mode in "${bases[@]}" "${modes[@]}"; do
    valgrind --tool=cachegrind --cache-sim=yes --LL=33554432,16,64 \
        --cachegrind-out-file="$work/$mode.out" "$work/probe" "$n" "$events" "$mode" >"$work/$mode.log" 2>&1 &
done
wait
total() { grep "$2" "$work/$1.log" | awk '{gsub(",", "", $4); print $4}'; }
for mode in "${modes[@]}"; do
    instructions=$(( ($(total $mode 'I   refs') - $(total $(base $mode) 'I   refs')) / events ))
    misses=$(( ($(total $mode 'LL misses') - $(total $(base $mode) 'LL misses')) / events ))
    echo "$mode at n=$n: $instructions instructions, $misses last-level misses per event"
done
