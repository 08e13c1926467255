#!/bin/sh
# rename-trace-codec.sh: the rename that moved trace's codec to package
# trace/codec and what only tests use to trace/tracetest, applied to
# every Go file outside those packages and package trace itself. Run it
# from the
# repository's root on a branch made before the move, then merge the
# branch that made it (or the other way round): the lines it rewrites
# are rewritten alike on both sides. Running it twice changes nothing.
#
#   trace.ReadTrace, ReadTraceFile, ReadRun, StreamRun,
#   ReadAnyFile, Detect, WriteTrace, WriteRun, WriteOptions,
#   NewTraceWriter, NewRunWriter, TraceWriter, RunWriter, TraceHeader,
#   TraceFormat, RunFormat, RunFormat2  ->  codec.<same name>
#   trace.NewBuilder, Builder, ReadRunFile  ->  tracetest.<same name>
#
# Comments and the names in Markdown files are rewritten too. Imports
# are added where a file now needs them, and goimports removes the ones
# it no longer needs.
set -eu
mod=$(go list -m)
codec='ReadTrace|ReadTraceFile|ReadRun|StreamRun|ReadAnyFile|Detect|WriteTrace|WriteRun|WriteOptions|NewTraceWriter|NewRunWriter|TraceWriter|RunWriter|TraceHeader|TraceFormat|RunFormat|RunFormat2'
tracetest='NewBuilder|Builder|ReadRunFile'
files=$(git ls-files '*.go' | grep -v -e '^trace/[^/]*\.go$' -e '^trace/codec/' -e '^trace/tracetest/' |
	xargs grep -l -E "(^|[^[:alnum:]_.])trace\.($codec|$tracetest)([^[:alnum:]_]|$)" || true)
for f in $files; do
	perl -pi -e "s/(?<![\\w.])trace\\.($codec)\\b/codec.\$1/g; s/(?<![\\w.])trace\\.($tracetest)\\b/tracetest.\$1/g" "$f"
	for pkg in codec tracetest; do
		if grep -q -E "(^|[^[:alnum:]_.])$pkg\.[A-Z]" "$f" && ! grep -q "\"$mod/trace/$pkg\"" "$f"; then
			perl -0pi -e "s{^import \\(\\n}{import (\\n\\t\"$mod/trace/$pkg\"\\n}m or s{^import ((\\w+ )?\"[^\"]+\")\\n}{import (\\n\\t\$1\\n\\t\"$mod/trace/$pkg\"\\n)\\n}m" "$f"
		fi
	done
done
[ -z "$files" ] || go run golang.org/x/tools/cmd/goimports@latest -w $files
echo "rename-trace-codec: rewrote $(printf "%s\n" $files | grep -c .) Go files"
docs=$(git ls-files '*.md' | xargs grep -l -E "trace\.($codec|$tracetest)\b" || true)
for f in $docs; do
	perl -pi -e "s/(?<![\w.])trace\.($codec)\b/codec.\$1/g; s/(?<![\w.])trace\.($tracetest)\b/tracetest.\$1/g" "$f"
done
