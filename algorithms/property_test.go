package algorithms_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"pgregory.net/rapid"

	broken "github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// defaultChecks is the number of rapid checks per property when the
// command line does not say: rapid's own default (100) is below the
// "few hundred" the CI budget affords, and -short divides by five.
const defaultChecks = "300"

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set && os.Getenv("RAPID_CHECKS") == "" {
		if err := flag.Set("rapid.checks", defaultChecks); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// traces draws the traces of the properties: gentest.Mixed, half small
// step-structured traces that shrink to a handful of events, half
// generated executions raised to at least 20–100 ops, where overlapping
// recoveries and the violations they cause live.
func traces() *rapid.Generator[*trace.Trace] { return gentest.Mixed(20, 100) }

// tb is what the helpers need of *testing.T and *rapid.T alike.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// sound lists the real (non-mutant) variants whose runs must verify
// clean, as (algorithm, variant) pairs.
var sound = [][2]string{{"ms", ""}, {"pk", ""}}

// variants returns every variant, sound ones first, then the mutants.
func variants() [][2]string { return append(append([][2]string{}, sound...), mutants...) }

// mutants are the deliberately broken variants the checker must catch:
// the textbook variant (broken under concurrent failures) and every
// test-only mutant of package mutants.
var mutants = func() [][2]string {
	out := [][2]string{{"ms", "textbook"}}
	for _, m := range broken.All {
		out = append(out, [2]string{m.Algo, m.Name})
	}
	return out
}()

// replayWith replays tr through algorithm name, variant.
func replayWith(t tb, tr *trace.Trace, name, variant string) *trace.Run {
	t.Helper()
	return replayOpts(t, tr, name, variant, trace.Params{})
}

// replayOpts replays tr with params overriding the trace's, as the
// command-line flags do.
func replayOpts(t tb, tr *trace.Trace, name, variant string, params trace.Params) *trace.Run {
	t.Helper()
	alg, err := broken.New(name, variant, tr)
	if err != nil {
		t.Fatalf("%s/%s: %v", name, variant, err)
	}
	run, err := replay.Run(tr, alg, replay.Options{Variant: variant, Params: params})
	if err != nil {
		t.Fatalf("%s/%s: replay: %v\n%s", name, variant, err, traceText(tr))
	}
	return run
}

// traceText is the trace as JSON Lines, for failure messages.
func traceText(tr *trace.Trace) string {
	var b bytes.Buffer
	if err := codec.WriteTrace(&b, tr, codec.WriteOptions{JSONL: true}); err != nil {
		return "(unencodable trace: " + err.Error() + ")"
	}
	return b.String()
}

// runBytes encodes a run.
func runBytes(t tb, run *trace.Run, opts codec.WriteOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := codec.WriteRun(&b, run, opts); err != nil {
		t.Fatalf("WriteRun: %v", err)
	}
	return b.Bytes()
}

// dump renders a report's verdicts and witnesses for failure messages.
func dump(r report.Report) string {
	var b strings.Builder
	for _, p := range r.Properties {
		fmt.Fprintf(&b, "%s=%s %s\n", p.Name, p.Status, p.Note)
		for _, v := range p.Violations {
			fmt.Fprintf(&b, "   %s seqs %v\n      because %s\n", v.Message, v.Seqs, v.Because)
		}
	}
	return b.String()
}

// status returns the verdict of the named property ("" if absent).
func status(r report.Report, name string) report.Status {
	for _, p := range r.Properties {
		if p.Name == name {
			return p.Status
		}
	}
	return ""
}

// wantNA are the properties an algorithm does not promise (SPEC §7; rdt
// is FDAS's promise, docs/checker.md): everything else must pass on its
// own runs.
var wantNA = map[string]map[string]bool{
	"ms": {report.MinimalRollback: true, report.RDT: true},
	"pk": {report.ZCycleFree: true, report.SnLines: true, report.RDT: true},
}

// assertClean fails unless every property of the report is pass, or n/a
// exactly where the algorithm promises nothing. unknown is never
// justified for our own runs with their source trace: every field the
// checker needs is written.
func assertClean(t tb, tr *trace.Trace, run *trace.Run, name string, r report.Report) {
	t.Helper()
	if len(r.Properties) != len(report.PropertyNames) {
		t.Fatalf("%s: %d properties judged, want %d", name, len(r.Properties), len(report.PropertyNames))
	}
	for _, p := range r.Properties {
		want := report.Pass
		if wantNA[name][p.Name] {
			want = report.NA
		}
		if p.Status != want {
			t.Fatalf("%s: %s is %s, want %s\n%s\ntrace:\n%s\nrun:\n%s", name, p.Name, p.Status, want,
				dump(r), traceText(tr), runBytes(t, run, codec.WriteOptions{JSONL: true}))
		}
	}
	if !r.Valid {
		t.Fatalf("%s: report not valid although no property fails", name)
	}
}

// appEvent is an op as the identity compares it.
type appEvent struct {
	T    trace.Time
	Kind trace.Kind
	Msg  int32
	To   int32
}

// TestPropertyFailureFreeIdentity: with the fails stripped, the run's app
// events are exactly the trace's ops — same times, same kinds and
// messages, same order per process — and the run holds no recovery
// action at all.
func TestPropertyFailureFreeIdentity(t *testing.T) {
	for _, a := range sound {
		t.Run(a[0], func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				tr := gentest.FailureFree(traces()).Draw(t, "trace")
				run := replayWith(t, tr, a[0], a[1])
				n := len(tr.Processes)
				want, got := make([][]appEvent, n), make([][]appEvent, n)
				// The trace's unreceived messages, and only they, end in
				// mailboxes.
				var inTransit, unconsumed []int32
				for m, msg := range tr.Messages {
					if msg.Recv == trace.None {
						inTransit = append(inTransit, int32(m))
					}
				}
				for _, e := range tr.Events {
					if e.Kind.IsOp() {
						want[e.P] = append(want[e.P], appEvent{e.T, e.Kind, e.Msg, e.To})
					}
				}
				for _, e := range run.Events {
					switch e.Kind {
					case trace.Send, trace.Recv, trace.Internal:
						to := int32(trace.None)
						if e.Kind == trace.Send {
							to = e.Peer
						}
						if e.Resend || (e.Kind == trace.Recv && e.Via != trace.ViaNet) {
							t.Fatalf("failure-free run has %s", replayEventText(run, &e))
						}
						got[e.P] = append(got[e.P], appEvent{e.T, e.Kind, e.Msg, to})
					case trace.Unconsumed:
						unconsumed = append(unconsumed, e.Msg)
					case trace.Restart, trace.Rollback, trace.Discard, trace.Hold, trace.ControlSend,
						trace.ControlRecv, trace.Resume, trace.Fail:
						t.Fatalf("failure-free run has %s", replayEventText(run, &e))
					case trace.End:
						if e.State != trace.StateDone {
							t.Fatalf("failure-free run ends %s", replayEventText(run, &e))
						}
					}
				}
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("app events differ\ntrace: %v\nrun:   %v", want, got)
				}
				slices.Sort(unconsumed)
				if !slices.Equal(inTransit, unconsumed) {
					t.Fatalf("unconsumed %v, want the unreceived messages %v", unconsumed, inTransit)
				}
			})
		})
	}
}

// replayEventText names a run event in failure messages.
func replayEventText(run *trace.Run, e *trace.RunEvent) string {
	return fmt.Sprintf("seq %d %s at %s t=%s", e.Seq, e.Kind, run.Processes[e.P], e.T)
}

// TestPropertyDeterminism: two replays of one trace, by fresh algorithm
// instances, encode to identical bytes, for every
// variant, mutants included (they are deterministic too).
func TestPropertyDeterminism(t *testing.T) {
	t.Parallel() // among the slowest: overlap them on the cores
	rapid.Check(t, func(t *rapid.T) {
		tr := traces().Draw(t, "trace")
		for _, a := range variants() {
			x := runBytes(t, replayWith(t, tr, a[0], a[1]), codec.WriteOptions{})
			y := runBytes(t, replayWith(t, tr, a[0], a[1]), codec.WriteOptions{})
			if !bytes.Equal(x, y) {
				t.Fatalf("%s/%s: two replays differ\n%s\n---\n%s", a[0], a[1], x, y)
			}
		}
	})
}

// TestPropertyVerifyClean: both algorithms' runs of every generated trace
// (0–3 failures, concurrent ones included) verify with every property
// pass, or n/a where the algorithm promises nothing; never fail, never
// unknown, also with delays overridden as on the command line — and judged without the trace, the same but for equivalence.
func TestPropertyVerifyClean(t *testing.T) {
	for _, a := range sound {
		t.Run(a[0], func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				tr := traces().Draw(t, "trace")
				// Sometimes with delays overriding the trace's, as
				// --restart-delay and --control-delay do.
				var over trace.Params
				if rapid.Bool().Draw(t, "override") {
					over = trace.Params{
						RestartDelay: rapid.SampledFrom([]trace.Time{0, trace.Second / 3, 3 * trace.Second / 2}).Draw(t, "restart_delay"),
						ControlDelay: rapid.SampledFrom([]trace.Time{0, trace.Second / 20, 7 * trace.Second / 10}).Draw(t, "control_delay"),
						DefaultDelay: rapid.SampledFrom([]trace.Time{0, trace.Second / 5, 3 * trace.Second}).Draw(t, "default_delay"),
					}
				}
				run := replayOpts(t, tr, a[0], a[1], over)
				assertClean(t, tr, run, a[0], consistency.Check(run, tr))
				// Without the source trace the program is inferred from
				// the run: every verdict stays, except equivalence,
				// which SPEC §7 makes unknown.
				for _, p := range consistency.Check(run, nil).Properties {
					want := report.Pass
					switch {
					case p.Name == report.Equivalence:
						want = report.Unknown
					case wantNA[a[0]][p.Name]:
						want = report.NA
					}
					if p.Status != want {
						t.Fatalf("%s without its trace: %s is %s, want %s\n%s", a[0], p.Name, p.Status, want, traceText(tr))
					}
				}
			})
		})
	}
}

// TestPropertyRoundTrip: traces survive every encoding (JSON, JSONL,
// gzip) unchanged, and runs re-encode to the same bytes after decoding
// and are judged identically by the checker when decoded.
func TestPropertyRoundTrip(t *testing.T) {
	t.Parallel() // among the slowest: overlap them on the cores
	rapid.Check(t, func(t *rapid.T) {
		tr := traces().Draw(t, "trace")
		tr.Name = "gen.json"
		for _, opts := range []codec.WriteOptions{{}, {JSONL: true}, {Gzip: true}, {JSONL: true, Gzip: true}} {
			var b bytes.Buffer
			if err := codec.WriteTrace(&b, tr, opts); err != nil {
				t.Fatalf("WriteTrace(%+v): %v", opts, err)
			}
			back, err := codec.ReadTrace("gen.json", bytes.NewReader(b.Bytes()))
			if err != nil {
				t.Fatalf("ReadTrace(%+v): %v\n%s", opts, err, traceText(tr))
			}
			if !reflect.DeepEqual(normTrace(back), normTrace(tr)) {
				t.Fatalf("trace round trip (%+v) differs:\nwrote %+v\nread  %+v", opts, tr, back)
			}
		}
		a := rapid.SampledFrom(variants()).Draw(t, "algorithm")
		run := replayWith(t, tr, a[0], a[1])
		for _, opts := range []codec.WriteOptions{{}, {JSONL: true}, {Gzip: true}} {
			enc := runBytes(t, run, opts)
			back, err := codec.ReadRun("run.json", bytes.NewReader(enc))
			if err != nil {
				t.Fatalf("ReadRun(%+v): %v\n%s", opts, err, runBytes(t, run, codec.WriteOptions{JSONL: true}))
			}
			if x, y := runBytes(t, run, codec.WriteOptions{}), runBytes(t, back, codec.WriteOptions{}); !bytes.Equal(x, y) {
				t.Fatalf("run round trip (%+v) re-encodes differently:\n%s\n---\n%s", opts, x, y)
			}
			if x, y := reportJSON(t, consistency.Check(run, tr)), reportJSON(t, consistency.Check(back, tr)); !bytes.Equal(x, y) {
				t.Fatalf("%s/%s: decoded run judged differently:\n%s\n---\n%s", a[0], a[1], x, y)
			}
		}
	})
}

// reportJSON encodes a report with its file name cleared (the decoded
// run carries the name it was read under).
func reportJSON(t tb, r report.Report) []byte {
	t.Helper()
	r.File = ""
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("marshal report: %v", err)
	}
	return b
}

// normTrace returns a copy of tr with empty slices as nil, so that
// DeepEqual compares contents only.
func normTrace(tr *trace.Trace) trace.Trace {
	c := *tr
	if len(c.Msgs) == 0 {
		c.Msgs = nil
	}
	if len(c.Messages) == 0 {
		c.Messages = nil
	}
	if len(c.Events) == 0 {
		c.Events = nil
	}
	return c
}

// TestPropertyTextbookSingleFailure: the seed's textbook rules are sound
// while recoveries do not overlap (SPEC §4.2), so with at most one
// failure the textbook variant must verify as clean as the default.
func TestPropertyTextbookSingleFailure(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := traces().Draw(t, "trace")
		fails := 0
		for _, e := range tr.Events {
			if e.Kind == trace.Fail {
				fails++
			}
		}
		if fails > 1 {
			t.Skip("overlapping recoveries possible")
		}
		run := replayWith(t, tr, "ms", "textbook")
		assertClean(t, tr, run, "ms", consistency.Check(run, tr))
	})
}

// TestPropertyTimeScaling is a metamorphic property of the engine and
// the algorithms: multiplying every time of a trace — events, down
// times and all three delays — by k changes nothing but the times of the
// run, which are multiplied by k (the simulation is exact integer
// arithmetic, and scaling preserves every order and tie).
func TestPropertyTimeScaling(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := traces().Draw(t, "trace")
		k := trace.Time(rapid.IntRange(2, 5).Draw(t, "k"))
		a := rapid.SampledFrom(variants()).Draw(t, "algorithm")
		base := *tr
		base.Params = tr.Params.WithDefaults()
		scaled := base
		scaled.Params = trace.Params{RestartDelay: k * base.Params.RestartDelay, ControlDelay: k * base.Params.ControlDelay, DefaultDelay: k * base.Params.DefaultDelay}
		scaled.Events = make([]trace.Event, len(tr.Events))
		for i, e := range tr.Events {
			e.T, e.Down = k*e.T, k*e.Down
			scaled.Events[i] = e
		}
		want := replayWith(t, &base, a[0], a[1]).Events
		for i := range want {
			want[i].T *= k
		}
		got := replayWith(t, &scaled, a[0], a[1]).Events
		if len(got) != len(want) {
			t.Fatalf("%s/%s ×%d: %d events, want %d", a[0], a[1], k, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s/%s ×%d: event %d is %+v, want %+v\n%s", a[0], a[1], k, i, got[i], want[i], traceText(tr))
			}
		}
	})
}

// TestPropertyMSIgnoresFlushes: MS writes its log to stable storage at
// the receive (SPEC §4.2), so flush events change nothing in its runs
// but the time of the end records (a run ends at its last event).
func TestPropertyMSIgnoresFlushes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := traces().Draw(t, "trace")
		v := rapid.SampledFrom([]string{"", "textbook"}).Draw(t, "variant")
		noFlush := *tr
		noFlush.Events = nil
		for _, e := range tr.Events {
			if e.Kind != trace.Flush {
				noFlush.Events = append(noFlush.Events, e)
			}
		}
		if err := trace.Validate(&noFlush); err != nil {
			t.Fatalf("trace without flushes: %v", err)
		}
		// The end and unconsumed records come at the time of the last
		// event, which may be a flush: only their time may differ.
		endless := func(r *trace.Run) *trace.Run {
			for i := range r.Events {
				if k := r.Events[i].Kind; k == trace.End || k == trace.Unconsumed {
					r.Events[i].T = 0
				}
			}
			return r
		}
		x := runBytes(t, endless(replayWith(t, tr, "ms", v)), codec.WriteOptions{JSONL: true})
		y := runBytes(t, endless(replayWith(t, &noFlush, "ms", v)), codec.WriteOptions{JSONL: true})
		if !bytes.Equal(x, y) {
			t.Fatalf("ms/%s: flushes change the run\n%s\n---\n%s", v, x, y)
		}
	})
}

// TestTextbookAdoptThenForce: a message whose incarnation is higher and
// whose sn is above the adopted recovery line makes textbook MS take, at
// one instant, the recovery checkpoint numbered by the line, the forced
// checkpoint numbered by the message, then the receipt (SPEC §4). The
// checker's spec once required the receipt right after the recovery
// checkpoint and failed this run (rapid seed 6859624652775555403 of
// TestPropertyTextbookSingleFailure); the same run with the two
// checkpoints in the other order still fails.
func TestTextbookAdoptThenForce(t *testing.T) {
	tr, err := codec.ReadTraceFile("testdata/textbook-adopt-then-force.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	run := replayWith(t, tr, "ms", "textbook")
	if r := consistency.Check(run, tr); status(r, "log-replay-rules") != report.Pass {
		t.Fatalf("log-replay-rules is %s, want pass\n%s", status(r, "log-replay-rules"), dump(r))
	}
	swapped := false
	for i := 0; i+1 < len(run.Events) && !swapped; i++ {
		a, b := &run.Events[i], &run.Events[i+1]
		if a.Kind == trace.Checkpoint && a.CkptType == trace.CkptRecovery && b.Kind == trace.Checkpoint && b.CkptType == trace.CkptForced && a.P == b.P && a.T == b.T {
			*a, *b = *b, *a
			a.Seq, b.Seq = int32(i), int32(i+1)
			swapped = true
		}
	}
	if !swapped {
		t.Fatal("the run has no recovery checkpoint followed by a forced one at its instant")
	}
	if r := consistency.Check(run, tr); status(r, "log-replay-rules") != report.Fail {
		t.Fatalf("forced checkpoint before the adoption: log-replay-rules is %s, want fail\n%s", status(r, "log-replay-rules"), dump(r))
	}
}
