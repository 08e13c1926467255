package pipeline

import (
	"reflect"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/measure"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestCheckerSameReports: the checker taking the run on a goroutine of
// its own (checker.go) reports what it reports taking each event between
// the engine's steps, for every algorithm and variant, on traces with
// failures (PK's tokens carry views of its live receipt log), concurrent
// or not (the algorithms that recover), and runs longer than a hand-over. Under -race it also shows
// that the checker reads only what the engine no longer writes.
func TestCheckerSameReports(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		for _, a := range algorithms.All {
			cfg := gen.DefaultConfig()
			cfg.Seed, cfg.Procs, cfg.Events = seed, 6+int(seed), 3000
			if a.Recovery {
				cfg.Failures, cfg.Concurrent = 6, seed%2 == 0
			}
			tr, err := gen.Trace(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range append([]string{""}, algorithms.VariantNames()...) {
				if algorithms.VariantFor(a.Name, v) != v {
					continue
				}
				base := measure.StartBaseline(tr)
				got, _ := verifyOne(tr, "t.json", a.Name, Options{Variant: v}, base, nil)
				if want := oneGoroutine(t, tr, a.Name, v, base); !reflect.DeepEqual(got.Report, want) {
					t.Fatalf("%s %s seed %d: reports differ:\non its goroutine %+v\nbetween steps %+v", a.Name, v, seed, got.Report, want)
				}
			}
		}
	}
}

// oneGoroutine is verifyOne with the checker taking each event between
// the engine's steps.
func oneGoroutine(t *testing.T, tr *trace.Trace, name, variant string, base *measure.Baseline) any {
	alg, err := algorithms.New(name, algorithms.VariantFor(name, variant), tr)
	if err != nil {
		t.Fatal(err)
	}
	var s *consistency.Stream
	fed := 0
	opts := replay.Options{Variant: algorithms.VariantFor(name, variant)}
	opts.Stream = func(run *trace.Run, upto int) int {
		if s == nil {
			s = consistency.NewStream(run, tr, cap(run.Events))
		}
		for ; fed < upto; fed++ {
			s.Add(&run.Events[fed])
		}
		return upto
	}
	if _, err := replay.Run(tr, alg, opts); err != nil {
		return err.Error()
	}
	r := s.Report()
	measure.Fill(&r, s.Model(), base)
	r.File = "t.json"
	return r
}

// TestVerdictsOnlySameVerdicts: a verify that leaves out the report's
// tables (verify -q) judges every property as the full one does, and
// measures no table.
func TestVerdictsOnlySameVerdicts(t *testing.T) {
	cfg := gen.DefaultConfig()
	cfg.Seed, cfg.Procs, cfg.Events, cfg.Failures = 3, 5, 400, 3
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var p Pipeline
	o := Options{Algorithms: algorithms.Names}
	full := p.Verify(tr, "t.json", o)
	o.VerdictsOnly = true
	for i, got := range p.Verify(tr, "t.json", o) {
		want := full[i].Report
		if len(want.Recoveries) == 0 || want.Stats.Checkpoints.Initial == 0 {
			t.Fatalf("%s: the full report has no tables to leave out", want.Algorithm)
		}
		if !reflect.DeepEqual(got.Report.Properties, want.Properties) || got.Report.Valid != want.Valid {
			t.Fatalf("%s: verdicts differ:\nverdicts only %+v\nfull %+v", want.Algorithm, got.Report.Properties, want.Properties)
		}
		if got.Report.Recoveries != nil || !reflect.DeepEqual(got.Report.Stats, report.Stats{}) {
			t.Fatalf("%s: verdicts only measured the tables", want.Algorithm)
		}
	}
}
