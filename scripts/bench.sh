#!/usr/bin/env bash
# bench.sh: the performance table of docs/performance.md.
#
# Builds ckpt, generates the traces of issue 10 into a temporary directory
# (removed at exit), times `validate` and `verify` on each with
# /usr/bin/time -v and prints markdown tables: wall time, CPU time
# (user+sys), peak RSS, the ratios to validate, and the scaling from one
# size to the next. The load average is printed before and after, since
# wall times on a shared machine mean little without it.
#
# Environment:
#   SIZES   event counts of the scaling sweep (default "10000 100000 1000000 10000000";
#           10^7 is written and read as JSONL)
#   PROCS   process counts of the 10^6-event table (default "16 64")
#   KEEP=1  keep the temporary directory
set -euo pipefail

SIZES=${SIZES:-"10000 100000 1000000 10000000"}
PROCS=${PROCS:-"16 64"}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
if [[ "${KEEP:-}" != 1 ]]; then trap 'rm -rf "$tmp"' EXIT; fi
[[ -x /usr/bin/time ]] || { echo "bench.sh: /usr/bin/time (GNU time) is required" >&2; exit 2; }

(cd "$root" && go build -o "$tmp/ckpt" .)
ckpt="$tmp/ckpt"

# measure NAME ARGS...: runs ckpt ARGS and sets wall, cpu (seconds) and rss (MiB).
measure() {
  local log="$tmp/time.log" rc=0
  /usr/bin/time -v "$ckpt" "$@" >/dev/null 2>"$log" || rc=$?
  if [[ $rc -ne 0 && $rc -ne 1 ]]; then
    echo "bench.sh: ckpt $* exited $rc" >&2; cat "$log" >&2; exit 1
  fi
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$log")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u+s}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$log")
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a/b; else print "-" }'; }

gen() { # gen FILE PROCS EVENTS
  "$ckpt" gen --procs "$2" --events "$3" --failures 10 --seed 1 -o "$1"
}

echo "ckpt bench, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(go version | awk '{print $3}')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "### 10^6 events, 10 failures"
echo
echo "| trace | command | wall s | CPU s | peak RSS MiB | wall / validate | CPU / validate |"
echo "|---|---|---:|---:|---:|---:|---:|"
for p in $PROCS; do
  f="$tmp/p$p.json"
  gen "$f" "$p" 1000000
  measure validate "$f"; vw=$wall vc=$cpu
  echo "| $p procs | validate | $wall | $cpu | $rss | 1.00 | 1.00 |"
  for algo in ms pk both; do
    measure verify --algo "$algo" "$f"
    echo "| $p procs | verify --algo $algo | $wall | $cpu | $rss | $(ratio "$wall" "$vw") | $(ratio "$cpu" "$vc") |"
  done
  rm -f "$f"
done

echo
echo "### Scaling: verify --algo both, 16 processes, 10 failures"
echo
echo "| events | format | wall s | CPU s | peak RSS MiB | CPU × previous | RSS × previous |"
echo "|---:|---|---:|---:|---:|---:|---:|"
pc="" pr=""
for n in $SIZES; do
  ext=json
  if [[ $n -ge 10000000 ]]; then ext=jsonl; fi
  f="$tmp/s$n.$ext"
  gen "$f" 16 "$n"
  measure verify "$f"
  echo "| $n | $ext | $wall | $cpu | $rss | ${pc:+$(ratio "$cpu" "$pc")} | ${pr:+$(ratio "$rss" "$pr")} |"
  pc=$cpu pr=$rss
  rm -f "$f"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
