package explore

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// Merge combines the results of the shards 1/N … N/N of one exploration,
// in any order, into the result of the unsharded exploration: counts
// add up, worst cases and witnesses are the first in schedule order
// (every shard shrank its own first; the smallest ordinal is the whole
// space's), statuses and means are recomputed. names name the parts in
// errors: a part of another exploration, a shard missing or given twice,
// or one that was stopped early is refused. Merge sorts parts and names
// by shard, so that the result, its file name among them, is the same in
// any order (redteam9: the first given named it).
func Merge(parts []*Result, names []string) (*Result, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("merge: no shard to merge")
	}
	sortShards(parts, names)
	if err := checkShards(parts, names); err != nil {
		return nil, err
	}
	r := *parts[0]
	r.Scope.Shard, r.Scope.Run, r.Scope.ToRun, r.Scope.Covered = "1/1", 0, 0, new(big.Int)
	r.Baseline = PerFailure{}
	r.Algorithms = make([]AlgorithmResult, len(parts[0].Algorithms))
	for a := range r.Algorithms {
		r.Algorithms[a] = newAlgorithmResult(parts[0].Algorithms[a].Algorithm)
	}
	for _, p := range parts {
		r.Scope.Run += p.Scope.Run
		r.Scope.ToRun += p.Scope.ToRun
		r.Scope.Covered.Add(r.Scope.Covered, p.Scope.Covered)
		if p.Scope.Run == 0 {
			continue // its statuses say pass of no run
		}
		for a := range r.Algorithms {
			r.Algorithms[a].add(&p.Algorithms[a])
		}
		r.Baseline.merge(p.Baseline)
	}
	r.Scope.setCoverage()
	r.settle()
	return &r, nil
}

// sortShards orders parts, and names with them, by shard index; a part
// whose shard does not parse goes last, for checkShards to name.
func sortShards(parts []*Result, names []string) {
	index := func(r *Result) int {
		if sh, err := ParseShard(r.Scope.Shard); err == nil {
			return sh.Index
		}
		return math.MaxInt
	}
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(index(parts[a]), index(parts[b])) })
	p, n := slices.Clone(parts), slices.Clone(names)
	for i, k := range order {
		parts[i], names[i] = p[k], n[k]
	}
}

// checkShards refuses parts that are not the N shards of one
// exploration, each once, run to the end.
func checkShards(parts []*Result, names []string) error {
	n, seen := 0, map[int]string{}
	for i, p := range parts {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s: %s", names[i], fmt.Sprintf(format, args...))
		}
		if p.Stopped {
			return bad("stopped after %d of %d schedules: run the shard to the end", p.Scope.Run, p.Scope.ToRun)
		}
		sh, err := ParseShard(p.Scope.Shard)
		if err != nil {
			return bad("shard %q is not I/N (edited or corrupt?)", p.Scope.Shard)
		}
		n = cmp.Or(n, sh.Count)
		if sh.Count != n {
			return bad("shard %s, but %s is shard %s: merge takes the result of every shard of one exploration, once each",
				p.Scope.Shard, names[0], parts[0].Scope.Shard)
		}
		if seen[sh.Index] != "" {
			return bad("shard %s again (also %s)", p.Scope.Shard, seen[sh.Index])
		}
		seen[sh.Index] = names[i]
		if what := differs(parts[0], p); what != "" {
			return bad("not the same exploration as %s (%s differs)", names[0], what)
		}
		if err := readWitnesses(p); err != nil {
			return bad("%v", err)
		}
		if what := contradiction(p, sh); what != "" {
			return bad("%s (edited or corrupt?)", what)
		}
	}
	if len(parts) < n {
		return fmt.Errorf("%s: shard %s, and %s given: %s; merge takes the result of every shard of one exploration, once each",
			names[0], parts[0].Scope.Shard, pipeline.Plural(len(parts), "result", "results"), missing(seen, n))
	}
	return nil
}

// missing names the shards of n not in seen, the first five of more.
func missing(seen map[int]string, n int) string {
	var m []string
	for i := 0; i < n && len(m) < 5; i++ {
		if seen[i] == "" {
			m = append(m, fmt.Sprintf("%d/%d", i+1, n))
		}
	}
	list, word := strings.Join(m, ", "), "shards"
	if more := n - len(seen) - len(m); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	} else if len(m) == 1 {
		word = "shard"
	}
	return word + " " + list + " missing"
}

// contradiction says what in r, shard sh's result, its own figures
// refute ("" if nothing): merge adds them up and combines the statuses,
// so it must not take one that cannot be (redteam6: a shard claiming
// 9,999 schedules of 760 merged into a coverage of 505%; redteam8: a
// witness written wherever an algorithm's name pointed, ../../victim).
// A shard not stopped ran every schedule it set out to, and each stands
// for one or more of the space.
func contradiction(r *Result, sh Shard) string {
	s := r.Scope
	if s.Run < 0 || s.Run != s.ToRun {
		return fmt.Sprintf("it ran %d of %d schedules, yet was not stopped", s.Run, s.ToRun)
	}
	if s.Covered == nil || s.Schedules == nil || s.Covered.Cmp(big.NewInt(s.Run)) < 0 || s.Covered.Cmp(s.Schedules) > 0 {
		return fmt.Sprintf("its %d schedules run cover %v of a space of %v", s.Run, s.Covered, s.Schedules)
	}
	if b := r.Baseline; b.Failures < 0 || b.Total < 0 || b.Max < 0 {
		return "its baseline counts are negative"
	}
	for _, a := range r.Algorithms {
		e, ok := engineNamed(a.Algorithm)
		if !ok {
			return fmt.Sprintf("algorithm %q is none that ckpt explores", a.Algorithm)
		}
		for _, p := range a.Properties {
			if what := propContradiction(e, p, s.Covered, sh); what != "" {
				return a.Algorithm + "'s " + p.Name + " " + what
			}
		}
	}
	return ""
}

// propContradiction says what refutes p, a property of engine e's
// algorithm in a shard sh that covered that many schedules: a failing
// schedule is one of them; a shard fails a property exactly when some
// schedule fails it, and then carries its shrunk witness, which fails
// it when replayed (a cheap check: it is small).
func propContradiction(e engine, p PropertyResult, covered *big.Int, sh Shard) string {
	w, prop := p.Witness, propIndex(p.Name)
	switch {
	case prop >= len(Properties):
		return "is no property ckpt checks"
	case (p.Status == report.Fail) != (p.Failing > 0):
		return fmt.Sprintf("is %s with %d failing schedules: a shard's property fails exactly when some schedule fails it", p.Status, p.Failing)
	case p.FailingClasses < 0 || p.FailingClasses > p.Failing:
		return fmt.Sprintf("counts %d failing schedules replayed of %d failing", p.FailingClasses, p.Failing)
	case big.NewInt(p.Failing).Cmp(covered) > 0:
		return fmt.Sprintf("fails %d schedules of the %v the shard covered", p.Failing, covered)
	case w == nil && p.Failing > 0:
		return "fails with no witness: a shard that fails a property carries its witness"
	case w == nil:
		return ""
	case p.Failing == 0:
		return "passes with a witness"
	case !sh.has(w.Schedule.Ordinal):
		return fmt.Sprintf("witness is schedule %d, which shard %s does not run", w.Schedule.Ordinal, sh)
	case w.Trace == nil || w.Events != len(w.Trace.Events) || w.Processes != len(w.Trace.Processes) || w.Messages != len(w.Trace.Msgs):
		return "witness's sizes are not its trace's"
	case !e.failsProperty(w.Trace, prop):
		return "witness trace does not fail it"
	}
	return ""
}

// engineNamed finds the recovery algorithm and variant whose runs are
// named alg ("ms-textbook"): the only names a result of ckpt explore
// holds.
func engineNamed(alg string) (engine, bool) {
	for _, name := range algorithms.Names {
		a, _ := algorithms.Lookup(name)
		for _, v := range append([]algorithms.Variant{{}}, a.Variants...) {
			if e, err := newEngine(nil, name, v.Name, &trace.Trace{}); err == nil && e.alg == alg {
				return e, true
			}
		}
	}
	return engine{}, false
}

// differs names what makes p another exploration than q ("" if none):
// the trace explored (by its digest: ./t.json, t.json, its absolute
// path, stdin and t.json.gz are one trace; by the file's name only for
// shards that carry no digest), the scope but the shard's share (and
// the seed, which an exhaustive exploration does not use), the
// algorithms.
func differs(q, p *Result) string {
	switch {
	case p.Scope.Trace != q.Scope.Trace:
		return "the trace explored (its events or its delays)"
	case p.Scope.Trace == "" && p.File != q.File:
		return "the file"
	}
	common := func(s Scope) []byte {
		s.Shard, s.Run, s.ToRun, s.Covered, s.Coverage = "", 0, 0, nil, 0
		if s.Mode == Exhaustive {
			s.Seed = 0
		}
		b, _ := json.Marshal(s)
		return b
	}
	if !bytes.Equal(common(p.Scope), common(q.Scope)) {
		return "the scope"
	}
	same := func(a, b AlgorithmResult) bool {
		return a.Algorithm == b.Algorithm && len(a.Properties) == len(b.Properties)
	}
	if !slices.EqualFunc(p.Algorithms, q.Algorithms, same) {
		return "the algorithms"
	}
	return ""
}

// ParseShard reads --shard I/N, 1-based as CI matrices count.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(i)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 1 || a > b {
		return Shard{}, fmt.Errorf("shard %q: want I/N with 1 <= I <= N, e.g. 2/4", s)
	}
	return Shard{Index: a - 1, Count: b}, nil
}

// readWitnesses decodes the witness traces a shard's result carries;
// an error names the witness, and its caller the shard file (redteam6: it
// named the explored trace, which was fine).
func readWitnesses(r *Result) error {
	for a := range r.Algorithms {
		for _, p := range r.Algorithms[a].Properties {
			if w := p.Witness; w != nil && w.Trace == nil && len(w.Doc) > 0 {
				tr, err := codec.ReadTrace("", bytes.NewReader(w.Doc))
				if err != nil {
					return fmt.Errorf("the witness trace of %s %s: %v", r.Algorithms[a].Algorithm, p.Name, err)
				}
				w.Trace = tr
			}
		}
	}
	return nil
}

// traceDigest identifies the trace explored, with the params in force:
// the first 16 bytes of the SHA-256 of its canonical encoding.
func traceDigest(tr *trace.Trace) string {
	h := sha256.New()
	if codec.WriteTrace(h, tr, codec.WriteOptions{}) != nil {
		return ""
	}
	return fmt.Sprintf("sha256:%x", h.Sum(nil)[:16])
}
