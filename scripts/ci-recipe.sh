#!/usr/bin/env bash
# ci-recipe.sh — test the README's "Use in CI" recipe: build ckpt the way
# the GitHub Actions job does (from a checkout of this repository at a
# commit: here the committed tree of HEAD, via git archive) and run the
# job's `run:` lines, verbatim, on a directory of good traces, then on one
# with broken files, checking exit statuses, the JUnit file and the job
# summary. Every command it runs must appear, character for character, in
# README.md, so the recipe and this test cannot drift apart.
# Usage: scripts/ci-recipe.sh (from anywhere; needs git and Go).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The job's run: lines (README.md, "Use in CI").
build='go build -o "$RUNNER_TEMP/ckpt" .'
verify='"$RUNNER_TEMP/ckpt" verify --format junit -o ckpt.xml traces/'
summary='"$RUNNER_TEMP/ckpt" verify --format markdown traces/ >> "$GITHUB_STEP_SUMMARY" || true'

fail() { echo "ci-recipe: $*" >&2; exit 1; }
for line in "$build" "$verify" "$summary"; do
	grep -qxF "          $line" "$repo/README.md" || fail "README.md's recipe no longer runs: $line"
done
grep -qE '^          ref: [0-9a-f]{40} ' "$repo/README.md" || fail "README.md's recipe does not pin ckpt to a full commit hash"

# actions/checkout of ckpt at a commit into .ckpt, then the build step.
mkdir -p "$tmp/job/.ckpt" "$tmp/runner"
git -C "$repo" archive --format=tar HEAD | tar -x -C "$tmp/job/.ckpt"
export RUNNER_TEMP="$tmp/runner" GITHUB_STEP_SUMMARY="$tmp/summary.md"
(cd "$tmp/job/.ckpt" && eval "$build")
[ -x "$RUNNER_TEMP/ckpt" ] || fail "the build step made no binary"

# step runs one run: line in the job's directory and echoes its status.
step() { (cd "$tmp/job" && set +e && eval "$1" 2>>"$tmp/stderr"; echo $? >"$tmp/status"); cat "$tmp/status"; }

# 1. Good traces only: exit 0, a JUnit file without failures or errors.
mkdir "$tmp/job/traces"
cp "$repo"/testdata/traces/{forced,orphan,domino}.json "$tmp/job/traces/"
[ "$(step "$verify")" = 0 ] || fail "good traces: verify exited $(cat "$tmp/status"), want 0"
grep -q '<testsuites name="ckpt" tests="[0-9]*" failures="0" errors="0"' "$tmp/job/ckpt.xml" || fail "good traces: ckpt.xml: $(head -3 "$tmp/job/ckpt.xml")"
[ "$(step "$summary")" = 0 ] || fail "good traces: the summary step failed"
grep -q '^## Summary: 6 of 6 reports valid$' "$GITHUB_STEP_SUMMARY" || fail "good traces: summary: $(head -3 "$GITHUB_STEP_SUMMARY")"

# 2. Add broken files: every good trace still reported, the bad ones as
# errors, messages on stderr, exit 2; ckpt.xml still (re)written.
printf '{"format":"ckpt/trace@1","processes":["P0","P1"],"events":[{"t":1,"p":"P1","kind":"recv","msg":"m1"}]}\n' >"$tmp/job/traces/recv-first.json"
printf '{"format":"ckpt/trace@1","processes":["P0"],"events":[{"t":1,' >"$tmp/job/traces/truncated.json"
echo 'notes, not a trace' >"$tmp/job/traces/README.md"
rm -f "$tmp/job/ckpt.xml" "$GITHUB_STEP_SUMMARY" "$tmp/stderr"
[ "$(step "$verify")" = 2 ] || fail "broken traces: verify exited $(cat "$tmp/status"), want 2"
x="$tmp/job/ckpt.xml"
[ -f "$x" ] || fail "broken traces: no ckpt.xml written"
grep -q 'errors="2"' "$x" || fail "broken traces: ckpt.xml does not count 2 errors"
for f in forced orphan domino; do
	grep -q "<testcase name=\"ms/orphan-free\" classname=\"traces/$f.json\">" "$x" || fail "broken traces: $f.json is missing from ckpt.xml"
done
grep -q '<testcase name="input" classname="traces/recv-first.json">' "$x" || fail "broken traces: no error case for recv-first.json"
grep -q '<testcase name="input" classname="traces/truncated.json">' "$x" || fail "broken traces: no error case for truncated.json"
grep -q '^ckpt: traces/recv-first.json: trace event 0: recv of unknown message "m1"' "$tmp/stderr" || fail "broken traces: stderr: $(cat "$tmp/stderr")"
grep -q '^ckpt: note: traces/: skipped 1 entry (not .json, .jsonl or .gz): README.md$' "$tmp/stderr" || fail "broken traces: the skipped README is not noted"
[ "$(step "$summary")" = 0 ] || fail "broken traces: the summary step failed (|| true)"
grep -q '^## Summary: 6 of 8 reports valid, 2 errors$' "$GITHUB_STEP_SUMMARY" || fail "broken traces: summary: $(head -3 "$GITHUB_STEP_SUMMARY")"
grep -q '^| traces/truncated.json | - | \*\*ERROR\*\* |' "$GITHUB_STEP_SUMMARY" || fail "broken traces: no summary row for truncated.json"

echo "ci-recipe: the README's CI recipe builds and behaves (0 on good traces; 2, every file reported, on broken ones)"
