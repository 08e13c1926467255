package protocoltest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/replay/replaytest"
	"github.com/ckpt-dev/ckpt/trace"
)

// New makes a fresh state machine of the protocol under test.
type New func(tr *trace.Trace) (replay.Algorithm, error)

// Promise judges a failure-free pattern: nil when it keeps the protocol's
// promise, else why not.
type Promise func(pt *Pattern) error

// ZCycleFree is the promise of bcs, hmnr and ms: no useless checkpoint.
func ZCycleFree(pt *Pattern) error {
	u, err := pt.Useless()
	if err != nil {
		return err
	}
	if len(u) > 0 {
		return fmt.Errorf("useless checkpoints %v", u)
	}
	return nil
}

// Trackable is the promise of fdas: rollback-dependency trackability.
func Trackable(pt *Pattern) error {
	v, err := pt.RDT()
	if err != nil {
		return err
	}
	if len(v) > 0 {
		return fmt.Errorf("%d RDT violations, first %+v", len(v), v[0])
	}
	return nil
}

// SnConsistent is the promise of bcs and coordinated: every S_n (each
// process's earliest checkpoint numbered ≥ n) is consistent.
func SnConsistent(pt *Pattern) error {
	o, err := pt.SnOrphans()
	if err != nil {
		return err
	}
	if len(o) > 0 {
		return fmt.Errorf("inconsistent S_n: %+v", o)
	}
	return nil
}

func mustNew(t T, mk New, tr *trace.Trace) replay.Algorithm {
	t.Helper()
	a, err := mk(tr)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustPattern(t T, run *trace.Run) *Pattern {
	t.Helper()
	pt, err := PatternOf(run)
	if err != nil {
		t.Fatal(err)
	}
	return pt
}

// CheckAgainstReference: on random failure-free traces, and on twenty
// generated workloads where forced checkpoints abound (a rapid run may
// draw none that forces one), the run takes exactly the checkpoints
// (positions and types) of the reference rules, and its app events are
// the trace's (failure-free identity).
func CheckAgainstReference(t *testing.T, mk New, ref Rules) {
	forced := 0
	same := func(t T, tr *trace.Trace) {
		t.Helper()
		run := Replay(t, tr, mustNew(t, mk, tr))
		if want, got := replaytest.AppEvents(tr, run); !reflect.DeepEqual(want, got) {
			t.Fatalf("app events differ from the trace:\n got %v\nwant %v", got, want)
		}
		sim, err := Simulate(tr, ref)
		if err != nil {
			t.Fatal(err)
		}
		if diff := sim.SameCheckpoints(mustPattern(t, run)); diff != "" {
			t.Fatal(diff)
		}
		forced += CountsOf(run).Forced
	}
	rapid.Check(t, func(t *rapid.T) { same(t, Traces().Draw(t, "trace")) })
	for seed := uint64(1); seed <= 20; seed++ {
		same(t, Workload(t, 4+int(seed%3), 40+int(seed%3)*20, [][]float64{{2, 3.5, 6}, {1.5, 4}, {3, 2.5, 5, 7}}[seed%3], seed))
	}
	if forced == 0 {
		t.Fatal("no trace forced a checkpoint: the comparison proves little")
	}
}

// CheckPromise: on random failure-free traces the protocol keeps every
// promise, its run is in time order, and two fresh instances write
// byte-identical runs.
func CheckPromise(t *testing.T, mk New, promises ...Promise) {
	rapid.Check(t, func(t *rapid.T) {
		tr := Traces().Draw(t, "trace")
		run := Replay(t, tr, mustNew(t, mk, tr))
		if !bytes.Equal(Encode(t, run), Encode(t, Replay(t, tr, mustNew(t, mk, tr)))) {
			t.Fatal("two replays differ")
		}
		for i := 1; i < len(run.Events); i++ {
			if run.Events[i].T < run.Events[i-1].T {
				t.Fatalf("run event %d at t=%s, before event %d at t=%s", i, run.Events[i].T, i-1, run.Events[i-1].T)
			}
		}
		pt := mustPattern(t, run)
		for _, pr := range promises {
			if err := pr(pt); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// CheckMutantBreaks: the mutant breaks the promise on some generated
// workload on which the protocol keeps it — else the promise's test
// could not fail.
func CheckMutantBreaks(t *testing.T, mk New, mutant func(replay.Algorithm) replay.Algorithm, promise Promise) {
	for seed := uint64(1); seed <= 100; seed++ {
		tr := Workload(t, 2+int(seed%4), 60+int(seed%5)*20, [][]float64{{2, 3.5, 6}, {1.5, 4}, {3, 2.5, 5, 7}}[seed%3], seed)
		if err := promise(mustPattern(t, Replay(t, tr, mustNew(t, mk, tr)))); err != nil {
			t.Fatalf("seed %d: the protocol itself breaks its promise: %v", seed, err)
		}
		if err := promise(mustPattern(t, Replay(t, tr, mutant(mustNew(t, mk, tr))))); err != nil {
			t.Logf("seed %d: mutant caught: %v", seed, err)
			return
		}
	}
	t.Fatal("the mutant keeps the promise on 100 workloads")
}

// GoldenCase is a small trace whose run is a golden file,
// testdata/PROTOCOL/Name.run.jsonl, with the counts it must have
// (PBBytes ignored).
type GoldenCase struct {
	Name  string
	Trace *tracetest.Builder
	Want  Counts
}

// CheckGolden replays every case through a fresh state machine of the
// protocol and compares its run with the golden file (rewrite with
// -update).
func CheckGolden(t *testing.T, protocol string, mk New, cases []GoldenCase) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			tr, err := tc.Trace.Build()
			if err != nil {
				t.Fatal(err)
			}
			run := Replay(t, tr, mustNew(t, mk, tr))
			golden.Check(t, protocol+"/"+tc.Name+".run.jsonl", Encode(t, run))
			c := CountsOf(run)
			c.PBBytes = 0
			if c != tc.Want {
				t.Errorf("counts %+v, want %+v", c, tc.Want)
			}
		})
	}
}

// CheckRefusesFailures: a trace with a failure is an input error naming
// the fail event (the registry's placement).
func CheckRefusesFailures(t *testing.T, mk New) {
	tr := Procs(t, "P0", "P1")
	tr.Events = []trace.Event{
		{Kind: trace.Internal, P: 0, To: trace.None, Msg: trace.None},
		{T: trace.Second, Kind: trace.Fail, P: 1, To: trace.None, Msg: trace.None},
	}
	var ie *trace.InputError
	if _, err := mk(tr); !errors.As(err, &ie) || ie.Event != 1 {
		t.Fatalf("err = %v, want an input error at event 1", err)
	}
}

// Procs returns an empty trace of the named processes, for Step tests.
func Procs(t T, names ...string) *trace.Trace {
	t.Helper()
	tr, err := tracetest.NewBuilder(names...).Build()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
