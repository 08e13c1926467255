#!/usr/bin/env bash
# Verify ckpt's two algorithms on the real recorded systems.
#
# Imports every ShiViz / GoVector log of shared/realtraces/shiviz (found
# beside the repository, or given as the first argument) with checkpoint
# ticks, flushes and injected failures, replays each trace through MS and
# PK with `ckpt verify --format json`, and prints the markdown table of
# docs/realtraces.md on stdout. Deterministic: same inputs, same table.
#
#   scripts/realtraces.sh > docs/realtraces.md
#
# ALGO=ms or ALGO=pk restricts the run to one algorithm (default both).
# Needs go and jq. Exit status 0 when every trace imported and verified
# (whatever the verdicts), 2 when something could not run.
#
# scripts/realtraces.sh --parse-summary FILE reads import summary lines
# from FILE and prints, per line, the processes, events, messages and
# failures the table takes from it (cmd/testdata/script/realtraces.txtar
# runs it on what `ckpt import` prints).
set -euo pipefail

# count NOUN SUMMARY: the number import's summary line gives before NOUN,
# an extended regex naming its singular and plural ("5 processes",
# "1 process", "1 failure", "2 failures"); empty when the summary has
# none. Only the part after the last ": " is searched, so neither the
# file's path nor an execution's label can match.
count() {
	local noun=$1 summary=${2##*: }
	grep -oE "(^|[ ,;])[0-9]+ (${noun})([,;]|\$)" <<<"$summary" | grep -oE '[0-9]+' | head -1 || true
}

# counts SUMMARY: "PROCS EVENTS MSGS FAILURES", or nothing when one is missing.
counts() {
	local p e m f
	p=$(count 'process|processes' "$1")
	e=$(count 'events?' "$1")
	m=$(count 'messages?' "$1")
	f=$(count 'failures?' "$1")
	if [ -n "$p" ] && [ -n "$e" ] && [ -n "$m" ] && [ -n "$f" ]; then
		echo "$p $e $m $f"
	fi
}

if [ "${1:-}" = --parse-summary ]; then
	while IFS= read -r line; do
		case $line in " "*) continue ;; esac # notes under a summary
		c=$(counts "$line")
		echo "${c:-unreadable}"
	done <"$2"
	exit 0
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-}
if [ -z "$dir" ]; then
	d=$repo
	while [ "$d" != / ]; do
		if [ -d "$d/shared/realtraces/shiviz" ]; then
			dir=$d/shared/realtraces/shiviz
			break
		fi
		d=$(dirname "$d")
	done
fi
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
	echo "realtraces.sh: shared/realtraces/shiviz not found beside the repository; pass its path" >&2
	exit 2
fi
command -v jq >/dev/null || { echo "realtraces.sh: needs jq" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$repo" && go build -o "$tmp/ckpt" .)
ckpt=$tmp/ckpt
algo=${ALGO:-both}

# Environment added to every log: a checkpoint tick after every 10th event
# of each process and a log flush after every 5th.
common=(--tick-every 10 --flush-every 5)

akka='\[\w+\] \[(?<date>([^ ]+ [^ ]+))\] [^ ]+ \[akka://Broadcast/user/(?<host>\w+)\] (?<clock>.*\}) (?<event>.*)'
ewd='^State [0-9]+: <(?<event>\w*) .*>\n\/\\ Host = (?<host>.*)\n\/\\ Clock = "(?<clock>.*)"\n\/\\ active = (?<active>.*)\n\/\\ color = (?<color>.*)\n\/\\ counter = (?<counter>.*)'

cat <<'EOF'
# ckpt on real recorded systems

Every log of `shared/realtraces/shiviz` (ShiViz's example logs, recorded
from real systems) imported with `ckpt import shiviz`, given a checkpoint
tick after every 10th event of each process (`--tick-every 10`), a log
flush after every 5th (`--flush-every 5`) and the failures listed, then
replayed and checked by `ckpt verify --algo both`. Times are positions
(one second per op; restart delay 1 s, control delay 0.5 s).

Produced by `scripts/realtraces.sh > docs/realtraces.md` (needs go and jq;
finds `shared/` beside the repository). Import decisions: `docs/shiviz.md`.

Columns: ckpts = basic / forced / recovery checkpoints taken; logged /
replayed = message-log entries written / receipts replayed from the log;
undone = ops undone by restarts and rollbacks; ctl = control messages;
pb = piggyback bytes; baseline = what uncoordinated checkpointing would
suffer (domino effect, ops undone).

| log | execution | procs | events | msgs | failures injected | algo | verdict | ckpts | rollbacks | undone | logged / replayed | ctl | pb | baseline |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
EOF

status=0

# row LOG EXECUTION FAILDESC SUMMARY TRACE: verify TRACE and print its rows.
row() {
	local log=$1 exe=$2 fails=$3 summary=$4 trace=$5
	local procs events msgs nfail rc=0 c
	c=$(counts "$summary")
	if [ -z "$c" ]; then
		echo "realtraces.sh: $log: cannot read import's summary: $summary" >&2
		echo "| $log | $exe | | | | $fails | — | **error**: unreadable import summary | | | | | | | |"
		status=2
		return
	fi
	read -r procs events msgs nfail <<<"$c"
	fails="$nfail ($fails)"
	"$ckpt" verify --algo "$algo" --format json "$trace" >"$trace.report" 2>"$trace.err" || rc=$?
	if [ "$rc" -ge 2 ]; then
		echo "| $log | $exe | $procs | $events | $msgs | $fails | — | **error**: $(head -1 "$trace.err" | sed 's/|/\\|/g') | | | | | | | |"
		status=2
		return
	fi
	jq -r --arg log "$log" --arg exe "$exe" --arg procs "$procs" --arg events "$events" \
		--arg msgs "$msgs" --arg fails "$fails" '
		.[] |
		([.properties[] | select(.status == "fail") | .name]) as $bad |
		([.properties[] | select(.status == "unknown") | .name]) as $unk |
		(if .valid then "valid" else "**INVALID** (" + ($bad | join(", ")) + ")" end
			+ (if ($unk | length) > 0 then "; unknown: " + ($unk | join(", ")) else "" end)) as $verdict |
		.stats as $s |
		"| \($log) | \($exe) | \($procs) | \($events) | \($msgs) | \($fails) | \(.algorithm) | \($verdict) | " +
		"\($s.checkpoints.basic) / \($s.checkpoints.forced) / \($s.checkpoints.recovery) | " +
		"\($s.rollbacks) | \($s.undone) | \($s.logged) / \($s.replayed) | \($s.control_messages) | " +
		"\($s.piggyback_bytes) | " +
		(if .baseline.uncoordinated.domino then "domino" else "no domino" end) +
		", \(.baseline.uncoordinated.undone) undone |"
	' "$trace.report"
}

# one LOG FAILDESC IMPORT-ARGS...: import a log without delimiter.
one() {
	local log=$1 fails=$2
	shift 2
	local out=$tmp/${log%.log}.json
	if ! "$ckpt" import shiviz "${common[@]}" "$@" -o "$out" "$dir/$log" 2>"$out.summary"; then
		echo "| $log | | | | | $fails | — | **import error**: $(head -1 "$out.summary") | | | | | | | |"
		status=2
		return
	fi
	row "$log" "—" "$fails" "$(head -1 "$out.summary")" "$out"
}

one chord.log "front-end:23, kv-node-30:101" \
	--regex '(?<host>\S*) (?<clock>{.*})\n(?<event>.*)' --fail-at front-end:23 --fail-at kv-node-30:101
one simpledb.log "24464:33, 24468:62" --fail-at 24464:33 --fail-at 24468:62
one voldemort.log "42795@…main]:43" --fail-at '42795@jvoldemortThread[main,5,main]:43'
one reliable-broadcast.log "every \`Crashing\` event" --regex "$akka" --fail-match Crashing
one simple-reliable-broadcast.log "node1:12" --regex "$akka" --fail-at node1:12

# ewd998.log holds three executions: one trace each.
out=$tmp/ewd998
if "$ckpt" import shiviz "${common[@]}" --regex "$ewd" --delimiter '^=== (?<trace>.*) ===$' \
	--fail-at n1:3 -o "$out" "$dir/ewd998.log" 2>"$tmp/ewd998.summary"; then
	while IFS= read -r line; do
		case $line in " "*) continue ;; esac # notes under a summary
		f=${line%% (execution*}
		label=$(sed -E 's/^[^(]*\(execution "(.*)"\):.*/\1/' <<<"$line")
		row ewd998.log "$label" "n1:3" "$line" "$f"
	done <"$tmp/ewd998.summary"
else
	echo "| ewd998.log | | | | | n1:3 | — | **import error**: $(head -1 "$tmp/ewd998.summary") | | | | | | | |"
	status=2
fi

cat <<'EOF'

Processes, events and messages are those of the log (events are ShiViz
events; an event that receives or sends several messages becomes several
ops). Failures are injected after the given event of the given host
(`--fail-at HOST:N`) or after every event whose text matches
(`--fail-match`).
EOF
exit $status
