package consistency

import (
	"maps"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// A rule case isolates one rule of the checker: a run built or forged
// so that, within its property, that rule alone decides the status. A
// test that passes whatever the rule says proves nothing, so each case
// was checked by switching its rule off in the production code and
// seeing the case fail (the report of the change that added it says
// where).

// ruleCase is one run and what judging it must give: property prop has
// status, and its witness — for a failure every violation, for unknown
// the note — mentions witness. besides lists fragments of violations of
// prop that the forgery brings with it by necessity (a stale replay
// delivers an orphan too); they may appear, nothing else may. also names
// the statuses of the other properties the forgery breaks or leaves
// unknown; every property not named must not fail.
type ruleCase struct {
	name    string
	run     func(t *testing.T) *trace.Run
	src     func(t *testing.T) *trace.Trace // nil: judged without one
	prop    string
	status  report.Status
	witness string
	besides []string
	also    map[string]report.Status
}

// checkRuleCases judges every case as a subtest.
func checkRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var src *trace.Trace
			if c.src != nil {
				src = c.src(t)
			}
			r := Check(c.run(t), src)
			want := map[string]report.Status{c.prop: c.status}
			maps.Copy(want, c.also)
			expect(t, r, want)
			for _, p := range r.Properties {
				if p.Name == c.prop {
					c.judgeWitness(t, p, r)
				}
			}
		})
	}
}

// judgeWitness checks that property p's witness is the case's.
func (c ruleCase) judgeWitness(t *testing.T, p report.Property, r report.Report) {
	t.Helper()
	if c.status != report.Fail {
		if !strings.Contains(p.Note, c.witness) {
			t.Errorf("%s is %s with note %q, which does not mention %q\n%s", p.Name, p.Status, p.Note, c.witness, dump(r))
		}
		return
	}
	found := false
	for _, v := range p.Violations {
		text := v.Message + " " + v.Because
		switch {
		case strings.Contains(text, c.witness):
			found = true
		case !containsAny(text, c.besides):
			t.Errorf("%s has a violation this case is not about: %s\n%s", p.Name, text, dump(r))
		}
	}
	if !found {
		t.Errorf("no %s violation mentions %q\n%s", p.Name, c.witness, dump(r))
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// forge returns run with the event at seq, which must be of kind,
// changed by edit.
func forge(t *testing.T, run *trace.Run, seq int32, kind trace.Kind, edit func(e *trace.RunEvent)) *trace.Run {
	t.Helper()
	if seq < 0 || int(seq) >= len(run.Events) || run.Events[seq].Kind != kind {
		t.Fatalf("no %s event at seq %d to forge", kind, seq)
	}
	edit(&run.Events[seq])
	return run
}

// insertAt returns run with e inserted at seq, the events from seq on
// moved one seq later, and every failure field — e's too, which names a
// seq of run as it was — following the event it names.
func insertAt(run *trace.Run, seq int32, e trace.RunEvent) *trace.Run {
	for i := range run.Events {
		if f := run.Events[i].Failure; f != trace.None && f >= seq {
			run.Events[i].Failure = f + 1
		}
	}
	if e.Failure != trace.None && e.Failure >= seq {
		e.Failure++
	}
	run.Events = append(run.Events[:seq], append([]trace.RunEvent{e}, run.Events[seq:]...)...)
	return renumber(run)
}
