package consistency

import (
	"bytes"
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// A run that omits fields a property needs leaves that property unknown,
// never pass — and never hides a run that contradicts itself: the same
// runs with a structural break fail, whatever else is unknown.
func TestUnknownNeverHidesABrokenRun(t *testing.T) {
	strip := map[string]func(e *trace.RunEvent){
		"op":      func(e *trace.RunEvent) { e.Op = trace.None },
		"copy":    func(e *trace.RunEvent) { e.Copy, e.Of = 0, 0 },
		"sn":      func(e *trace.RunEvent) { e.Sn = trace.None },
		"restore": func(e *trace.RunEvent) { e.Restore = trace.None },
		"pos":     func(e *trace.RunEvent) { e.Pos, e.Undone = trace.None, trace.None },
		"failure": func(e *trace.RunEvent) {
			if e.Kind == trace.Rollback {
				e.Failure = trace.None
			}
		},
		"pb":   func(e *trace.RunEvent) { e.PB = trace.None },
		"vt":   func(e *trace.RunEvent) { e.VT = trace.None },
		"body": func(e *trace.RunEvent) { e.Body = trace.None },
	}
	breaks := map[string]func(run *trace.Run) *trace.Run{
		"time order": func(run *trace.Run) *trace.Run {
			run.Events[3].T = 0
			return run
		},
		"a second end": func(run *trace.Run) *trace.Run {
			e := run.Events[len(run.Events)-1]
			run.Events = append(run.Events, e)
			return renumber(run)
		},
		"a control message never sent": func(run *trace.Run) *trace.Run {
			return dropEvents(run, func(e *trace.RunEvent) bool { return e.Kind == trace.ControlSend })
		},
	}
	for name, run := range map[string]func(t *testing.T) *trace.Run{
		"ms":          func(*testing.T) *trace.Run { return msFailureRun(msOpts{}) },
		"pk":          func(*testing.T) *trace.Run { return pkRun(pkOpts{}) },
		"fdas":        func(t *testing.T) *trace.Run { return protocolRun(t, "fdas", "", rdtTrace(t)) },
		"coordinated": func(t *testing.T) *trace.Run { return protocolRun(t, "coordinated", "", roundTrace(t)) },
	} {
		for field, f := range strip {
			stripped := func(t *testing.T) *trace.Run {
				r := run(t)
				for i := range r.Events {
					f(&r.Events[i])
				}
				return r
			}
			t.Run(name+"/no "+field, func(t *testing.T) {
				r := Check(stripped(t), nil)
				if !r.Valid {
					t.Errorf("a clean run without %s fields fails:\n%s", field, dump(r))
				}
			})
			for what, brk := range breaks {
				t.Run(name+"/no "+field+"/"+what, func(t *testing.T) {
					broken := brk(stripped(t))
					if bytes.Equal(encodeRun(t, broken), encodeRun(t, stripped(t))) {
						t.Skipf("%s changes nothing in this run", what)
					}
					if r := Check(broken, nil); r.Valid {
						t.Errorf("a run without %s fields and with %s is valid:\n%s", field, what, dump(r))
					}
				})
			}
		}
	}
}

// A property the run cannot show is unknown with a note, never pass.
func TestMissingFieldsAreUnknown(t *testing.T) {
	for _, tc := range []struct {
		name  string
		run   func() *trace.Run
		strip func(e *trace.RunEvent)
		want  map[string]report.Status
	}{
		{"ms without copies", func() *trace.Run { return msFailureRun(msOpts{}) }, func(e *trace.RunEvent) { e.Copy = 0 },
			map[string]report.Status{report.OrphanFree: unknown, report.LogReplayRules: unknown, report.DominoFree: unknown,
				report.ZCycleFree: unknown, report.SnLines: unknown, report.MinimalRollback: na}},
		{"pk without checkpoint vectors", func() *trace.Run {
			return pkRun(pkOpts{ckptLost: true})
		}, func(e *trace.RunEvent) {
			if e.Kind == trace.Checkpoint {
				e.VT = trace.None
			}
		}, map[string]report.Status{report.DominoFree: unknown, report.ZCycleFree: na, report.SnLines: na}},
		{"pk without piggybacks", func() *trace.Run { return pkRun(pkOpts{}) }, func(e *trace.RunEvent) { e.PB = trace.None },
			map[string]report.Status{report.LogReplayRules: unknown}},
		{"fdas without copies", func() *trace.Run { return quietRun("fdas") }, func(e *trace.RunEvent) { e.Copy = 0 },
			map[string]report.Status{report.ZCycleFree: unknown, report.RDT: unknown, report.SnLines: na,
				report.LogReplayRules: na, report.DominoFree: na, report.MinimalRollback: na}},
		{"coordinated without ops", func() *trace.Run { return quietRun("coordinated") }, func(e *trace.RunEvent) { e.Op = trace.None },
			map[string]report.Status{report.ZCycleFree: unknown, report.SnLines: unknown, report.RDT: na}},
		{"bcs without sn", func() *trace.Run { return quietRun("bcs") }, func(e *trace.RunEvent) { e.Sn = trace.None },
			map[string]report.Status{report.ZCycleFree: report.Pass, report.SnLines: unknown, report.RDT: na}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := tc.run()
			for i := range run.Events {
				tc.strip(&run.Events[i])
			}
			r := Check(run, nil)
			got := verdicts(r)
			for p, w := range tc.want {
				if got[p] != w {
					t.Errorf("%s is %s, want %s\n%s", p, got[p], w, dump(r))
				}
			}
			for _, p := range r.Properties {
				if p.Status == unknown && p.Note == "" {
					t.Errorf("%s is unknown without a note", p.Name)
				}
			}
		})
	}
}
