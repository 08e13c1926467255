#!/usr/bin/env bash
# ci-explore-recipe.sh — test the README's "Explore over a CI matrix"
# recipe: build ckpt as its jobs do (from the committed tree of HEAD, via
# git archive), run the shard job's run: line for shards 1, 2 and 3 of 3
# (GitHub's ${{ matrix.shard }} and ${{ strategy.job-total }} filled in),
# then the merge job's lines on their results, and check that the merged
# report is the unsharded exploration's, byte for byte, in text and in
# markdown; a trace that cannot be read fails the shard step. Every
# command it runs from the recipe must appear, character for character,
# in README.md, so the recipe and this test cannot drift apart.
# Usage: scripts/ci-explore-recipe.sh (from anywhere; needs git and Go).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The jobs' run: lines (README.md, "Explore over a CI matrix").
build='go build -o "$RUNNER_TEMP/ckpt" .'
shard='"$RUNNER_TEMP/ckpt" explore --failures 2 --shard ${{ matrix.shard }}/${{ strategy.job-total }} --format json -o shard-${{ matrix.shard }}.json traces/app.json || [ $? -eq 1 ]'
merge='"$RUNNER_TEMP/ckpt" explore merge --out witnesses shard-*.json'
summary='"$RUNNER_TEMP/ckpt" explore merge --format markdown --out witnesses shard-*.json >> "$GITHUB_STEP_SUMMARY" || true'

fail() { echo "ci-explore-recipe: $*" >&2; exit 1; }
for line in "$build" "$shard" "$merge" "$summary"; do
	grep -qxF "          $line" "$repo/README.md" || fail "README.md's recipe no longer runs: $line"
done
grep -qxF '        shard: [1, 2, 3]   # N jobs: shard I of N each' "$repo/README.md" || fail "README.md's matrix is not shards 1, 2, 3"

mkdir -p "$tmp/src" "$tmp/runner"
git -C "$repo" archive --format=tar HEAD | tar -x -C "$tmp/src"
export RUNNER_TEMP="$tmp/runner"
(cd "$tmp/src" && eval "$build")
[ -x "$RUNNER_TEMP/ckpt" ] || fail "the build step made no binary"
ckpt="$RUNNER_TEMP/ckpt"

# job runs one run: line in directory $1 (GitHub's expressions already
# replaced) and echoes its status.
job() { (cd "$1" && set +e && eval "$2" 2>>"$tmp/stderr"; echo $? >"$tmp/status"); cat "$tmp/status"; }

# The shard jobs, each in a runner of its own.
for i in 1 2 3; do
	mkdir -p "$tmp/shard$i/traces"
	cp "$repo/explore/testdata/small.json" "$tmp/shard$i/traces/app.json"
	line=${shard//'${{ matrix.shard }}'/$i}
	line=${line//'${{ strategy.job-total }}'/3}
	[ "$(job "$tmp/shard$i" "$line")" = 0 ] || fail "shard $i/3 exited $(cat "$tmp/status"), want 0: $(cat "$tmp/stderr")"
	[ -s "$tmp/shard$i/shard-$i.json" ] || fail "shard $i/3 wrote no shard-$i.json"
done

# The merge job: the artifacts downloaded into one directory.
mkdir -p "$tmp/merge"
cp "$tmp"/shard*/shard-*.json "$tmp/merge/"
export GITHUB_STEP_SUMMARY="$tmp/summary.md"
(cd "$tmp/merge" && eval "$merge" >"$tmp/merged.txt") || fail "the merge step exited $?, want 0: $(cat "$tmp/stderr")"
[ "$(job "$tmp/merge" "$summary")" = 0 ] || fail "the summary step failed"

# The unsharded exploration, as one job would run it.
mkdir -p "$tmp/whole/traces"
cp "$repo/explore/testdata/small.json" "$tmp/whole/traces/app.json"
(cd "$tmp/whole" && "$ckpt" explore --failures 2 --out witnesses traces/app.json >"$tmp/whole.txt") || fail "the unsharded exploration exited $?"
(cd "$tmp/whole" && "$ckpt" explore --failures 2 --format markdown --out witnesses traces/app.json >"$tmp/whole.md") || fail "the unsharded exploration exited $?"
cmp -s "$tmp/merged.txt" "$tmp/whole.txt" || fail "the merged report is not the unsharded one: $(diff "$tmp/merged.txt" "$tmp/whole.txt" | head -20)"
cmp -s "$GITHUB_STEP_SUMMARY" "$tmp/whole.md" || fail "the merged summary is not the unsharded one: $(diff "$GITHUB_STEP_SUMMARY" "$tmp/whole.md" | head -20)"
grep -q 'schedules run' "$tmp/merged.txt" || fail "the merged report has no scope: $(head -5 "$tmp/merged.txt")"

# A trace that cannot be read (exit 2, not a verdict) fails its shard job.
echo 'not a trace' >"$tmp/shard1/traces/app.json"
line=${shard//'${{ matrix.shard }}'/1}
line=${line//'${{ strategy.job-total }}'/3}
[ "$(job "$tmp/shard1" "$line")" != 0 ] || fail "a bad trace: the shard step passed"

echo "ci-explore-recipe: the README's explore matrix merges 3 shards into the unsharded report"
