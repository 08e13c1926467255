#!/usr/bin/env bash
# bench.sh: the performance tables of docs/performance.md.
#
# Builds ckpt, generates traces into a temporary directory (removed at
# exit), times commands on each with /usr/bin/time -v and prints markdown
# tables: wall time, CPU time (user+sys), peak RSS, ratios. The load
# average is printed before and after, since wall times on a shared
# machine mean little without it. Every section but "small" writes
# traces of hundreds of megabytes and needs gigabytes of memory.
#
# Environment:
#   SECTIONS  which tables, in order (default "versus scaling failures procs"):
#             versus    the 10^6-event trace (16 processes, 10^6 events, 10
#                       failures, seed 4242): validate and verify --algo
#                       ms|pk|both, this build and CKPT_BASE (if set) in
#                       interleaved rounds, with the ratios new/base and
#                       verify/validate
#             ratios    10^6 events, PROCS processes, 10 failures: validate and
#                       verify --algo ms|pk|both, and their ratios to validate
#             scaling   verify --algo both over SIZES events, 16 processes
#             failures  4 processes: 100 ops with 1,000/3,000/6,000 failures,
#                       10^5 ops with 10^5 failures
#             procs     10^5 processes × 10^6 events under ms; 4,096 processes
#                       × 10^6 events under both
#             wide      PK at 4,096 processes × 10^6 events, no failures:
#                       replay --algo pk -o and the run's size,
#                       verify --algo pk and --algo ms; with OLD=/path/ckpt
#                       each command of that build too, in rounds
#             small     a few seconds in all: the sections above at small sizes
#                       (what CI may run)
#   SIZES     event counts of the scaling sweep (default "100000 1000000 10000000";
#             10^7 is written and read as JSONL)
#   PROCS     process counts of the ratios table (default "16 64")
#   REPEAT    runs of each measurement; the tables show the least wall time,
#             CPU time and peak RSS of the runs (default 1). The versus and
#             ratios tables run their commands in rounds, one run of each in
#             turn, so that what they divide was measured side by side
#   KEEP=1    keep the temporary directory
#   CKPT_FLAGS extra flags for every ckpt command measured (e.g. --max-memory 0)
#   CKPT_BIN  measure this ckpt binary instead of building the checkout (to
#             compare with another commit: go build -o /tmp/old . there)
#   CKPT_BASE the build the versus table compares with (e.g. the previous
#             release: git worktree add /tmp/base COMMIT && go build -o
#             /tmp/ckpt-base . there)
set -euo pipefail

SECTIONS=${SECTIONS:-"versus scaling failures procs"}
SIZES=${SIZES:-"100000 1000000 10000000"}
PROCS=${PROCS:-"16 64"}
REPEAT=${REPEAT:-1}
CKPT_FLAGS=${CKPT_FLAGS:-}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
if [[ "${KEEP:-}" != 1 ]]; then trap 'rm -rf "$tmp"' EXIT; fi
[[ -x /usr/bin/time ]] || { echo "bench.sh: /usr/bin/time (GNU time) is required" >&2; exit 2; }

if [[ -n "${CKPT_BIN:-}" ]]; then
  ckpt=$CKPT_BIN
else
  (cd "$root" && go build -o "$tmp/ckpt" .)
  ckpt="$tmp/ckpt"
fi

# once BIN ARGS...: runs BIN ARGS once and sets w, c (seconds), r (MiB)
# and code (exit status: 0 valid, 1 a property fails, 2 refused or
# invalid).
once() {
  local log="$tmp/time.log" bin=$1
  shift
  code=0
  # shellcheck disable=SC2086
  /usr/bin/time -v "$bin" "$@" $CKPT_FLAGS >/dev/null 2>"$log" || code=$?
  if [[ $code -gt 2 ]]; then
    echo "bench.sh: $bin $* exited $code" >&2; cat "$log" >&2; exit 1
  fi
  w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$log")
  c=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u+s}' "$log")
  r=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$log")
  if [[ ! -s "$tmp/refusal" ]]; then grep -m1 'memory cap' "$log" >"$tmp/refusal" || :; fi
}

least() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? a : b }'; }

# measure ARGS...: runs ckpt ARGS (REPEAT times, keeping the least of
# each figure: on a shared machine the others only add noise) and sets
# wall, cpu (seconds), rss (MiB) and rc (exit status: 0 valid, 1 a
# property fails, 2 refused or invalid).
measure() {
  local i
  : >"$tmp/refusal"
  for ((i = 0; i < REPEAT; i++)); do
    once "$ckpt" "$@"
    if [[ $i -eq 0 ]]; then
      wall=$w cpu=$c rss=$r rc=$code
    else
      wall=$(least "$w" "$wall") cpu=$(least "$c" "$cpu") rss=$(least "$r" "$rss")
    fi
  done
}

# rounds "BIN ARGS" ...: measures several commands whose figures are
# compared with each other, REPEAT rounds of one run of each in turn,
# and sets walls, cpus and rsss (the least of each command's runs, in
# the order given). Interleaved, a slow spell of a shared host slows
# every command of a round alike instead of the one measured during it,
# so the ratios between them hold still (run one after the
# other, verify's ratio to validate moved 3.6-4.2x within minutes).
rounds() {
  local i k args
  walls=() cpus=() rsss=()
  for ((i = 0; i < REPEAT; i++)); do
    k=0
    for args in "$@"; do
      # shellcheck disable=SC2086
      once $args
      if [[ $i -eq 0 ]]; then
        walls[k]=$w cpus[k]=$c rsss[k]=$r
      else
        walls[k]=$(least "$w" "${walls[k]}") cpus[k]=$(least "$c" "${cpus[k]}") rsss[k]=$(least "$r" "${rsss[k]}")
      fi
      k=$((k + 1))
    done
  done
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a/b; else print "-" }'; }

# status names a measurement's exit status for the tables.
status() {
  case $rc in
    0) echo "valid" ;;
    1) echo "invalid" ;;
    *) if [[ -s "$tmp/refusal" ]]; then echo "refused (memory cap)"; else echo "error"; fi ;;
  esac
}

gen() { # gen FILE PROCS EVENTS FAILURES
  # --max-events: a trace with 10^5 failures has ~3·10^6 events for 10^5 ops
  "$ckpt" gen --procs "$2" --events "$3" --failures "$4" --seed 1 --max-events 100000000 -o "$1"
}

# versus: validate and verify --algo ms|pk|both on the 10^6-event trace,
# this build and CKPT_BASE in interleaved rounds.
versus() {
  local f="$tmp/big.jsonl" bins=("$ckpt") k=0 label b
  "$ckpt" gen --procs 16 --events 1000000 --failures 10 --seed 4242 -o "$f"
  if [[ -n "${CKPT_BASE:-}" ]]; then bins+=("$CKPT_BASE"); fi
  local cmds=()
  for label in validate "verify --algo ms" "verify --algo pk" "verify --algo both"; do
    for b in "${bins[@]}"; do cmds+=("$b $label $f"); done
  done
  rounds "${cmds[@]}"
  echo "### 16 processes, 10^6 ops (1,200,445 events), 10 failures, seed 4242"
  echo
  echo "| command | build | wall s | CPU s | peak RSS MiB | wall / validate | CPU / base | RSS / base |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  local nb=${#bins[@]}
  for label in validate "verify --algo ms" "verify --algo pk" "verify --algo both"; do
    for ((b = 0; b < nb; b++)); do
      local name=this base=$((k - b))
      if [[ $b -gt 0 ]]; then name=base; fi
      local cr="" rr=""
      if [[ $nb -gt 1 ]]; then cr=$(ratio "${cpus[k]}" "${cpus[base + 1]}") rr=$(ratio "${rsss[k]}" "${rsss[base + 1]}"); fi
      echo "| $label | $name | ${walls[k]} | ${cpus[k]} | ${rsss[k]} | $(ratio "${walls[k]}" "${walls[b]}") | $cr | $rr |"
      k=$((k + 1))
    done
  done
  rm -f "$f"
  echo
}

# ratios PROCS EVENTS: the verify/validate table of one trace size.
ratios() {
  local events=$1
  echo "### $events events, 10 failures"
  echo
  echo "| trace | command | wall s | CPU s | peak RSS MiB | wall / validate | CPU / validate |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for p in $PROCS; do
    f="$tmp/p$p.json"
    gen "$f" "$p" "$events" 10
    rounds "$ckpt validate $f" "$ckpt verify --algo ms $f" "$ckpt verify --algo pk $f" "$ckpt verify --algo both $f"
    local k=0 label
    for label in validate "verify --algo ms" "verify --algo pk" "verify --algo both"; do
      echo "| $p procs | $label | ${walls[k]} | ${cpus[k]} | ${rsss[k]} | $(ratio "${walls[k]}" "${walls[0]}") | $(ratio "${cpus[k]}" "${cpus[0]}") |"
      k=$((k + 1))
    done
    rm -f "$f"
  done
  echo
}

# scaling SIZES...: verify --algo both, 16 processes, over the sizes.
scaling() {
  echo "### Scaling: verify --algo both, 16 processes, 10 failures"
  echo
  echo "| events | format | wall s | CPU s | peak RSS MiB | wall × previous | CPU × previous | RSS × previous |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|"
  # Each size's runs one after the other, not in rounds: interleaved
  # with the 10^7 runs, the 10^6 ones came out 10-20% slower (wall and
  # CPU) than the same trace in the ratios table, which flattered the
  # 10^7 ratio (docs/performance.md, session of 2026-12-04).
  local pw="" pc="" pr=""
  for n in "$@"; do
    ext=json
    if [[ $n -ge 10000000 ]]; then ext=jsonl; fi
    f="$tmp/s$n.$ext"
    gen "$f" 16 "$n" 10
    measure verify "$f"
    echo "| $n | $ext | $wall | $cpu | $rss | ${pw:+$(ratio "$wall" "$pw")} | ${pc:+$(ratio "$cpu" "$pc")} | ${pr:+$(ratio "$rss" "$pr")} |"
    pw=$wall pc=$cpu pr=$rss
    rm -f "$f"
  done
  echo
}

# failures "OPS:FAILURES ...": verify --algo both of 4-process traces.
failures() {
  echo "### Failures: verify --algo both, 4 processes"
  echo
  echo "| ops | failures | trace events | wall s | CPU s | peak RSS MiB | verdicts |"
  echo "|---:|---:|---:|---:|---:|---:|---|"
  for spec in "$@"; do
    ops=${spec%:*} nf=${spec#*:}
    f="$tmp/f$ops-$nf.json"
    gen "$f" 4 "$ops" "$nf"
    events=$("$ckpt" validate "$f" | awk -F'\t' '{split($3,a," "); print a[3]}')
    measure verify "$f"
    echo "| $ops | $nf | $events | $wall | $cpu | $rss | $(status) |"
    rm -f "$f"
  done
  echo
}

# procs "PROCS:EVENTS:ALGO ...": verify of wide traces (no failures).
procs() {
  echo "### Processes: verify, no failures"
  echo
  echo "| processes | events | --algo | wall s | CPU s | peak RSS MiB | verdicts |"
  echo "|---:|---:|---|---:|---:|---:|---|"
  for spec in "$@"; do
    IFS=: read -r np n algo <<<"$spec"
    f="$tmp/w$np-$n.json"
    gen "$f" "$np" "$n" 0
    measure verify --algo "$algo" "$f"
    echo "| $np | $n | $algo | $wall | $cpu | $rss | $(status) |"
    if [[ -s "$tmp/refusal" ]]; then echo; sed 's/^/    /' "$tmp/refusal"; echo; fi
    rm -f "$f"
  done
  echo
}

# wide PROCS EVENTS: PK at the width of real systems (docs/performance.md,
# "PK at 4,096 processes"), no failures: replay --algo pk -o (and the
# run's size), check of that run, verify --algo pk and --algo ms; with OLD set, the verify
# commands of that build too, interleaved run by run (never its replay
# -o at 4,096 processes: 13 GB of memory and a 12 GB run).
wide() {
  local np=$1 n=$2 f="$tmp/wide.jsonl" run="$tmp/wide.run.json" new=$ckpt i b cmd
  echo "### PK at $np processes, $n events, no failures"
  echo
  echo "| build | command | wall s | CPU s | peak RSS MiB | run MiB |"
  echo "|---|---|---:|---:|---:|---:|"
  gen "$f" "$np" "$n" 0
  measure replay --algo pk "$f" -o "$run"
  echo "| new | replay --algo pk -o | $wall | $cpu | $rss | $(du -m "$run" | cut -f1) |"
  measure check "$run"
  echo "| new | check (the run) | $wall | $cpu | $rss | |"
  rm -f "$run"
  for cmd in "verify --algo pk" "verify --algo ms"; do
    declare -A best=()
    for ((i = 0; i < REPEAT; i++)); do
      for b in new ${OLD:+old}; do
        if [[ $b == old ]]; then ckpt=$OLD; else ckpt=$new; fi
        # shellcheck disable=SC2086
        once "$ckpt" $cmd "$f"
        best[$b.w]=$(least "$w" "${best[$b.w]:-$w}") best[$b.c]=$(least "$c" "${best[$b.c]:-$c}") best[$b.r]=$(least "$r" "${best[$b.r]:-$r}")
      done
    done
    ckpt=$new
    for b in ${OLD:+old} new; do
      echo "| $b | $cmd | ${best[$b.w]} | ${best[$b.c]} | ${best[$b.r]} | |"
    done
  done
  rm -f "$f"
  echo
}

echo "ckpt bench, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(go version | awk '{print $3}'), REPEAT=$REPEAT"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
for s in $SECTIONS; do
  case $s in
    versus) versus ;;
    ratios) ratios 1000000 ;;
    scaling) # shellcheck disable=SC2086
      scaling $SIZES ;;
    failures) failures 100:1000 100:3000 100:6000 100000:100000 ;;
    procs) procs 100000:1000000:ms 4096:1000000:both ;;
    wide) wide 4096 1000000 ;;
    small)
      PROCS="16" ratios 20000
      scaling 10000 100000
      failures 100:300 100:3000 10000:10000
      procs 20000:200000:ms 256:100000:both
      wide 256 100000 ;;
    *) echo "bench.sh: unknown section $s" >&2; exit 2 ;;
  esac
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
