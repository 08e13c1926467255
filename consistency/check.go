// Package consistency is ckpt's independent consistency checker (SPEC §7).
// It reads a run — every action of a recovery algorithm, in time order —
// and, when available, the execution trace it was replayed from, and
// judges every property of §7 as pass, fail, n/a or unknown, with
// witnesses a person can follow.
//
// The checker never imports algorithm code and trusts no algorithm state.
// It works in two steps, in the style of porcupine: package history
// builds, in one pass over the run, an immutable model of what happened
// (live histories, checkpoints, copies and who took them, failures and
// their handling, happened-before); then one pure function per property,
// each in the file named after it (orphan_free.go, no_lost_messages.go,
// …), judges the model into its property's verdict and witnesses,
// after what the specs found as the run streamed. The report's tables
// (recoveries, statistics, baseline) are package measure's: they feed
// no verdict.
//
// Cost: linear in events + checkpoints + copies + failures × processes
// (happened-before over every failure's undone set is one forward pass of
// interned sparse sets, never per-event vector clocks).
package consistency

import (
	"runtime"
	"sync"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// rules are the property rules in report order (report.PropertyNames),
// each judging the finished model into the result that holds what the
// specs judged of its property as the run streamed, after it.
var rules = [...]func(m *history.Model, r *result){
	orphanFree, noLostMessages, noDuplicates, logReplayRules, dominoFree,
	zCycleFree, rollbackDependencyTrackable, snLines, minimalRollback, equivalence,
}

// ruleNames are the rules' properties, in their order: the report's
// list (the conversion panics at start-up if it is shorter than ten;
// TestRuleOrder fails if it is longer).
var ruleNames = [10]string(report.PropertyNames)

// The places in rules of the properties the specs report to.
const orphanFreeAt, logReplayAt, dominoFreeAt, equivalenceAt = 0, 3, 4, 9

// Check judges run against SPEC §7 and returns its verdicts: the
// report's properties (the tables the report adds beside them are
// package measure's). src is the trace the run was replayed from, or
// nil: equivalence is then unknown. Check never panics on a malformed
// run: what it cannot judge is reported unknown, what contradicts itself
// fails.
func Check(run *trace.Run, src *trace.Trace) report.Report {
	r, _ := Judge(run, src)
	return r
}

// Judge is Check, also returning the model it judged, from which the
// report's tables are measured.
func Judge(run *trace.Run, src *trace.Trace) (report.Report, *history.Model) {
	s := newStream(run, src, len(run.Events), recoveryHorizon(run))
	for i := range run.Events {
		s.Add(&run.Events[i])
	}
	return s.Report(), s.Model()
}

// judgeRules runs the rules on every core the process may use: they are
// pure functions of the model (TestRulesArePure) and each writes only
// its own result, so the report is the same in any order. Each follows
// what the specs found of its property as the run streamed. The replay
// and the streamed check use two cores at most (verify's checker takes
// the run on a goroutine of its own); judging at the end uses them all.
func judgeRules(m *history.Model, streamed *[len(rules)]result, beside []func(*history.Model)) []result {
	out := streamed[:]
	tasks := make(chan func(), len(rules)+len(beside))
	for _, f := range beside {
		tasks <- func() { f(m) }
	}
	for i := range rules {
		if i != equivalenceAt {
			tasks <- func() { rules[i](m, &out[i]) }
		}
	}
	close(tasks)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(tasks)) {
		wg.Go(func() {
			for task := range tasks {
				task()
			}
		})
	}
	wg.Wait()
	return out
}
