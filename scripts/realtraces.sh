#!/usr/bin/env bash
# Verify ckpt's two algorithms on the real recorded systems.
#
# Imports every ShiViz / GoVector log of testdata/imports/shiviz (or of
# the directory given as the first argument) and every real
# file of testdata/imports with checkpoint ticks, flushes and injected
# failures, replays each trace through MS and
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
dir=${1:-$repo/testdata/imports/shiviz}
if [ ! -d "$dir" ]; then
	echo "realtraces.sh: $dir: no such directory" >&2
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

Real logs and spans of public projects imported with `ckpt import` and
checked by `ckpt verify --algo both`. Produced by
`scripts/realtraces.sh > docs/realtraces.md` (needs go and jq).

## Formats

`ckpt import FILE...` tells each file's format from its first 64 KiB
(`--from FORMAT` forces it; `ckpt import shiviz FILE...` is
`--from shiviz`). What is no log is refused at once, in one line: binary
data (a NUL byte), text that is not UTF-8, a line longer than 1 MiB, a
JSON document of no format below (one of ckpt's own, a trace or a run,
is named as such: verify or check reads it), text with no event in its
first 64 KiB.
Several files of one log are merged into one execution; files of spans
and of vector clocks are not mixed. The real examples are in
`testdata/imports` (sources and licences in its README; ShiViz's
example logs in `testdata/imports/shiviz`, MIT licence beside them).

| format (`--from`) | told by | real example | a process is | an event is | messages |
|---|---|---|---|---|---|
| ShiViz / GoVector text (`shiviz`) | any other text | `blueprint-*-Log.txt` (GoVector, one file per process), `tracechecker-trace_log_shiviz.txt`, `shiviz/*.log` | a host | a regex match: `--regex`, else the regex on the first line, else the layout detected (docs/shiviz.md) | inferred from the vector clocks, as ShiViz does |
| DistributedClocks tracing records (`tracing`) | a JSON object with `TracerIdentity`, `Tag`, `Body` or `VectorClock` first | `tracechecker-trace_log.txt` (TraceChecker) | a `TracerIdentity` | a line: text `Tag Body`, field `trace` = `TraceID` | inferred from `VectorClock` |
| OpenTelemetry OTLP/JSON (`otlp`) | a JSON object with `resourceSpans` (one such object a line too) | `otlp-nodejs.json` (Node.js SDK), `otlp-example.json` (the protocol's example) | a resource's `service.name` | a span's start (below) | parent/child spans on two processes (below) |
| Jaeger JSON (`jaeger`) | a JSON object with `data` (query API, UI download) or `spans`/`processes` (one trace) | `jaeger-petclinic.json` (Spring PetClinic), `jaeger-nodejs.json` | a process's `serviceName` | a span's start | the span's first reference (`FOLLOWS_FROM`: asynchronous); others are counted as links |
| Zipkin v2 JSON (`zipkin`) | JSON arrays and nothing else (of spans, or of traces; one a line too) | `zipkin-skew.json`, `zipkin-messaging.json`, `zipkin-yelp.json` (Zipkin's test data, Yelp's trace) | a `localEndpoint.serviceName` | a span's start | `parentId`; a `shared` server span is the child of the client span with its id |

A service seen on several instances (OTLP `service.instance.id` or
`host.name`, Jaeger `hostname` or `ip`, Zipkin address and port) is one
process per instance, `service@instance`.

### Spans

* Every span is an event at its start, on its process (label: its name,
  `[span=ID, kind=KIND]`). A child on its parent's process adds nothing
  more: same-service spans are internal events.
* A parent and child on two processes are a call: a **request** message
  to the child's start, sent by the parent span's start when the parent
  is a client or producer span, else by an event `call NAME` placed
  within the parent span at the child's start time. Unless the call is
  asynchronous (the child a consumer, the parent a producer, or the
  reference follows-from), a **response** goes from an event at the
  child's end (`NAME (end)`) to the client span's end (which receives
  the responses to all its calls, then sends its own), or to an event
  `NAME returned` placed within the parent.
* Times are the spans' own, relative to the earliest. Each process's
  clock is shifted by the least non-negative amount that puts every
  receive at or after its send (`Execution.Deskew` in `trace/shiviz`:
  longest paths over the processes' constraints); if the clocks
  contradict each other no process is shifted; then any event still
  earlier than a cause is raised to it.
  Every shift and raise is reported.
* The summary counts spans, request and response messages, spans within
  their parent's process, client or producer spans that call a service
  not in the file, spans whose parent is not in the file (each starts a
  tree), parent cycles broken, links ignored, spans ending before they
  start (taken as instantaneous), and every span skipped with its reason
  (no span id, no start time, a start before 1970, an id already seen).
  A time or duration that is no whole number, or lies past 2116, is
  refused (exit 2) naming its span and the value as written; a JSON
  fault, or a file cut short, is refused naming its line.

## Verdicts

Each log imported with a checkpoint tick after every K-th event of each
process (`--tick-every`), a log flush after every F-th (`--flush-every`)
and the failures listed, then replayed and checked. Times are positions
(one second per op) for vector-clock logs, the spans' own for spans
(restart delay 1 s, control delay 0.5 s).

Columns: ckpts = basic / forced / recovery checkpoints taken; logged /
replayed = message-log entries written / receipts replayed from the log;
undone = ops undone by restarts and rollbacks; ctl = control messages;
pb = piggyback bytes; baseline = what uncoordinated checkpointing would
suffer (domino effect, ops undone).

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

# header TITLE: a table's title and header.
header() {
	printf '\n### %s\n\n' "$1"
	echo "| log | execution | procs | events | msgs | failures injected | algo | verdict | ckpts | rollbacks | undone | logged / replayed | ctl | pb | baseline |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

# one LOG FAILDESC IMPORT-ARGS...: import files (among the arguments)
# without delimiter into one trace.
one() {
	local log=$1 fails=$2
	shift 2
	local out=$tmp/${log//[^A-Za-z0-9.]/_}.json
	if ! "$ckpt" import "${common[@]}" "$@" -o "$out" 2>"$out.summary"; then
		echo "| $log | | | | | $fails | — | **import error**: $(head -1 "$out.summary") | | | | | | | |"
		status=2
		return
	fi
	row "$log" "—" "$fails" "$(head -1 "$out.summary")" "$out"
}

header "testdata/imports/shiviz: ShiViz's example logs (--tick-every 10 --flush-every 5)"
one chord.log "front-end:23, kv-node-30:101" --fail-at front-end:23 --fail-at kv-node-30:101 "$dir/chord.log"
one simpledb.log "24464:33, 24468:62" --fail-at 24464:33 --fail-at 24468:62 "$dir/simpledb.log"
one voldemort.log "42795@…main]:43" --fail-at '42795@jvoldemortThread[main,5,main]:43' "$dir/voldemort.log"
one reliable-broadcast.log "every \`Crashing\` event" --regex "$akka" --fail-match Crashing "$dir/reliable-broadcast.log"
one simple-reliable-broadcast.log "node1:12" --regex "$akka" --fail-at node1:12 "$dir/simple-reliable-broadcast.log"

# ewd998.log holds three executions: one trace each.
out=$tmp/ewd998
if "$ckpt" import "${common[@]}" --regex "$ewd" --delimiter '^=== (?<trace>.*) ===$' \
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

# The real files of testdata/imports, with no option but the environment.
I=$repo/testdata/imports
common=(--tick-every 3 --flush-every 2)
header "testdata/imports: GoVector, tracing records, spans (--tick-every 3 --flush-every 2)"
one "blueprint (GoVector, 2 files)" "leaf_process.goveclogger:5" --fail-at leaf_process.goveclogger:5 \
	"$I/blueprint-leaf_process.goveclogger-Log.txt" "$I/blueprint-nonleaf_process.goveclogger-Log.txt"
one tracechecker-trace_log.txt "client1:20" --fail-at client1:20 "$I/tracechecker-trace_log.txt"
one zipkin-skew.json "servicea:2" --fail-at servicea:2 "$I/zipkin-skew.json"
one zipkin-messaging.json "backend:1" --fail-at backend:1 "$I/zipkin-messaging.json"
one zipkin-yelp.json "mobile_api:2" --fail-at mobile_api:2 "$I/zipkin-yelp.json"
one jaeger-petclinic.json "customers-service:2" --fail-at customers-service:2 "$I/jaeger-petclinic.json"
one otlp-nodejs.json "example-trace:2" --fail-at example-trace:2 "$I/otlp-nodejs.json"

cat <<'EOF'

Processes, events and messages are those of the log (an event that
receives or sends several messages becomes several ops). Failures are
injected after the given event of the given host (`--fail-at HOST:N`) or
after every event whose text matches (`--fail-match`).
EOF
exit $status
