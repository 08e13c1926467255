package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/pk"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/ckpt-dev/ckpt/trace/tracetest"
)

func TestCapSet(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"0", 0, false}, {"4096", 4096, false}, {"2GiB", 2 << 30, false}, {"2G", 2 << 30, false},
		{"2gb", 2 << 30, false}, {"512MiB", 512 << 20, false}, {"1.5 KiB", 1536, false},
		{"64K", 64 << 10, false}, {"1T", 1 << 40, false},
		{"lots", 0, true}, {"-1G", 0, true}, {"2XB", 0, true}, {"", 0, true}, {"1e30G", 0, true},
	} {
		var c Cap
		err := c.Set(tc.in)
		if (err != nil) != tc.bad || c.Bytes != tc.want {
			t.Errorf("Set(%q) = %d, %v; want %d, bad %v", tc.in, c.Bytes, err, tc.want, tc.bad)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 B", 2048: "2.0 KiB", 3 << 29: "1.5 GiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMeminfoTotal(t *testing.T) {
	if got := meminfoTotal([]byte("MemFree:  100 kB\nMemTotal:       24601232 kB\nBuffers: 1 kB\n")); got != 24601232 {
		t.Fatalf("meminfoTotal = %d", got)
	}
	if got := meminfoTotal([]byte("nothing\n")); got != 0 {
		t.Fatalf("meminfoTotal of nothing = %d", got)
	}
}

// TestReplayEstimate: the estimate grows with what makes runs big —
// PK's vectors with processes (from its registry entry), recovery lines
// with failures — and names it; a cap below it refuses, at it accepts;
// runs kept together add up.
func TestReplayEstimate(t *testing.T) {
	small := replay.Sizes{Events: 1000, Procs: 4, Msgs: 300, Sends: 300, Recvs: 300, Checkpoints: 40, Flushes: 20, Busy: 4}
	wide := small
	wide.Procs, wide.Busy = 4096, 4096
	idle := wide // the same processes, only 4 with events
	idle.Busy = 4
	failing := small
	failing.Fails = 100000
	base := replayEstimate(small, []string{"ms"}, true).bytes
	for _, tc := range []struct {
		s     replay.Sizes
		alg   string
		why   string
		times float64 // at least this many times the small MS estimate
	}{
		{small, "pk", "run events", 1},
		{wide, "pk", "4096 processes: a 4096-entry vector for each of 4096 busy processes", 10},
		{wide, "ms", "run events", 1},
		{wide, "fdas", "4096 processes: a 4096-entry vector for each of 300 sends and 40 checkpoints", 1.5},
		{idle, "pk", "4096 processes: a 4096-entry vector", 1},
		{failing, "ms", "100000 failures × 4 processes", 20},
	} {
		e := replayEstimate(tc.s, []string{tc.alg}, true)
		if !strings.Contains(e.why, tc.why) {
			t.Errorf("%+v %s: why %q, want %q", tc.s, tc.alg, e.why, tc.why)
		}
		if err := (&Cap{Bytes: e.bytes - 1}).check("x.json", e); err == nil || !strings.Contains(err.Error(), "x.json: replaying it through "+tc.alg+" and checking the run needs about") {
			t.Errorf("%+v %s: cap below the estimate: %v", tc.s, tc.alg, err)
		}
		if err := (&Cap{Bytes: e.bytes}).check("x.json", e); err != nil {
			t.Errorf("%+v %s: cap at the estimate: %v", tc.s, tc.alg, err)
		}
		if float64(e.bytes) < tc.times*float64(base) {
			t.Errorf("%+v %s: estimate %s, want at least %.0f × %s", tc.s, tc.alg, FormatBytes(e.bytes), tc.times, FormatBytes(base))
		}
	}
	both := replayEstimate(small, []string{"ms", "pk"}, true)
	ms, pk := replayEstimate(small, []string{"ms"}, true), replayEstimate(small, []string{"pk"}, true)
	if both.bytes <= max(ms.bytes, pk.bytes) || !strings.HasSuffix(both.doing, "ms and pk and checking the runs") {
		t.Errorf("kept together the estimates must add up: both %d (%s), ms %d, pk %d", both.bytes, both.doing, ms.bytes, pk.bytes)
	}
}

// TestCheckEstimatePK: checking a PK run counts a vector per busy
// process and checkpoint, none for the processes without events.
func TestCheckEstimatePK(t *testing.T) {
	run := &trace.Run{Algorithm: "pk", Processes: make([]string, 2000)}
	for range 100 {
		run.Events = append(run.Events, trace.NewRunEvent(trace.Checkpoint, 0, 0))
	}
	e := checkEstimate(run)
	if e.bytes > baseBytes+2*2000*8*1000 {
		t.Fatalf("idle: estimate %s (%s), want no vector for the 1999 processes without events", FormatBytes(e.bytes), e.why)
	}
	for i := range run.Events {
		run.Events[i].P = int32(i * 20)
	}
	if e = checkEstimate(run); e.bytes < 2000*8*200 || !strings.Contains(e.why, "2000 processes: a 2000-entry vector") {
		t.Fatalf("busy: estimate %s (%s), want a vector for each of 100 busy processes and 100 checkpoints", FormatBytes(e.bytes), e.why)
	}
}

// TestVerifyOverCap: an algorithm whose replay would exceed the cap gets
// an error report naming what is too big, beside the others' reports;
// with KeepRuns, the runs of all add up.
func TestVerifyOverCap(t *testing.T) {
	c := gen.DefaultConfig()
	c.Procs, c.Events, c.Seed = 200, 2000, 1
	tr, err := gen.Trace(c)
	if err != nil {
		t.Fatal(err)
	}
	s := replay.SizesOf(tr)
	msBytes := replayEstimate(s, []string{"ms"}, true).bytes
	p := &Pipeline{Mem: &Cap{Bytes: msBytes}}
	outs := p.Verify(tr, "w.json", Options{Algorithms: []string{"ms", "pk"}})
	if outs[0].Report.Error != "" || outs[0].Report.Verdict == report.VerdictError {
		t.Errorf("ms: %+v", outs[0].Report.Error)
	}
	if !strings.Contains(outs[1].Report.Error, "replaying it through pk and checking the run needs about") {
		t.Errorf("pk: %q", outs[1].Report.Error)
	}
	p.Mem.Bytes = replayEstimate(s, []string{"pk"}, true).bytes
	outs = p.Verify(tr, "w.json", Options{Algorithms: []string{"ms", "pk"}, KeepRuns: true})
	for _, o := range outs {
		if !strings.Contains(o.Report.Error, "replaying it through ms and pk and checking the runs") || o.Run != nil {
			t.Errorf("kept runs over the cap: %q", o.Report.Error)
		}
	}
}

// TestVerifyStreamedEstimate: a streamed verify holds the vectors of a
// wide PK run only while they may be read again — the copies in flight,
// the latest checkpoints, and up to its last failure's recovery what a
// recovery may restore — so a cap that the whole run's vectors exceed
// does not refuse it, and a run kept whole (KeepRuns) still is.
func TestVerifyStreamedEstimate(t *testing.T) {
	c := gen.DefaultConfig()
	c.Procs, c.Events, c.Failures, c.Seed = 512, 20000, 0, 1
	tr, err := gen.Trace(c)
	if err != nil {
		t.Fatal(err)
	}
	s := replay.SizesOf(tr)
	whole := replayEstimate(s, []string{"pk"}, true).bytes
	streamed := replayEstimate(streamedSizes(tr, s, trace.Params{}), []string{"pk"}, true).bytes
	if streamed*2 > whole {
		t.Fatalf("streamed estimate %d is not well under the whole run's %d", streamed, whole)
	}
	p := &Pipeline{Mem: &Cap{Bytes: streamed}}
	if r := p.Verify(tr, "w.json", Options{Algorithms: []string{"pk"}})[0].Report; r.Error != "" {
		t.Errorf("streamed verify refused: %q", r.Error)
	}
	if r := p.Verify(tr, "w.json", Options{Algorithms: []string{"pk"}, KeepRuns: true})[0].Report; r.Error == "" {
		t.Errorf("kept run under a cap its estimate %d exceeds: not refused", whole)
	}
}

// TestReceiptChainOverCap (redteam6): a ckpt/run@2 file of a few hundred
// kilobytes whose token receipt lists each extend the one before by
// reference decodes to a size quadratic in its length, since each list
// is decoded as a copy. Reading and checking it count those copies and
// refuse under the cap instead of being killed; a chain that adds
// nothing shares the list and is read.
func TestReceiptChainOverCap(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, add bool) string {
		var b strings.Builder
		b.WriteString(`{"format":"ckpt/run@2","algorithm":"pk","processes":["P0","P1","P2"],"options":{"restart_delay":1,"control_delay":0.5,"default_delay":1},"events":[` + "\n")
		b.WriteString(`{"seq":0,"t":1,"p":"P0","kind":"send","msg":"m1","to":"P1","op":0,"copy":1,"pb":{"vt":{"set":[[0,0,1]]}}},` + "\n")
		b.WriteString(`{"seq":1,"t":1,"p":"P1","kind":"recv","msg":"m1","from":"P0","op":0,"copy":1,"via":"net"},` + "\n")
		b.WriteString(`{"seq":2,"t":2,"p":"P1","kind":"control_send","to":"P2","control":"token","body":{"origin":"P1","inc":0,"k":1,"received":[` + strings.Repeat(`["m1",0],`, 1999) + `["m1",0]]},"failure":0}`)
		prev, keep := 2, 2000
		for s := 3; s < 3003; s++ {
			more := ""
			if add {
				more = `["m1",0]`
			}
			fmt.Fprintf(&b, ",\n"+`{"seq":%d,"t":2,"p":"P1","kind":"control_send","to":"P2","control":"token","body":{"origin":"P1","inc":0,"k":1,"received":{"of":%d,"keep":%d,"add":[%s]}},"failure":0}`, s, prev, keep, more)
			if add {
				prev, keep = s, keep+1
			}
		}
		b.WriteString("\n]}\n")
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p := &Pipeline{Mem: &Cap{Bytes: 40 << 20}}
	chain := write("chain.json", true)
	// Lists of 2001, 2002, … 5000 identities: 10,501,500 copied.
	const want = "10501500 receipt identities its lists by reference copy"
	if _, err := p.ReadRun(chain); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("read: %v, want a refusal naming %s", err, want)
	}
	if _, _, err := p.CheckFile(chain); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("check: %v, want a refusal naming the copied identities", err)
	}
	if _, err := p.ReadRun(write("shared.json", false)); err != nil {
		t.Errorf("a chain that shares its list: %v", err)
	}
}

// TestManyProcesses: with many processes the estimates hold what a
// replay and a check keep per process, and MS's Rollback to every
// process at a restart. Measured peaks (docs: the constants' comments)
// of traces of one message, a checkpoint and a failure, in MiB: a
// replay of 10^6 processes through ms took 1,586 (the old estimate said
// 511, and 2 × 10^6 processes under a 1100MiB cap were killed at 2.6 GB),
// through pk 932; verify of 250,000, ms 667, pk 602.
func TestManyProcesses(t *testing.T) {
	sizes := func(procs int64) replay.Sizes {
		return replay.Sizes{Events: 4, Msgs: 1, Procs: procs, Busy: 2, Sends: 1, Recvs: 1, Checkpoints: 1, Fails: 1}
	}
	for _, tc := range []struct {
		procs    int64
		alg      string
		check    bool
		measured int64 // MiB
	}{
		{1_000_000, "ms", false, 1586},
		{1_000_000, "pk", false, 932},
		{250_000, "ms", true, 667},
		{250_000, "pk", true, 602},
	} {
		if e := replayEstimate(sizes(tc.procs), []string{tc.alg}, tc.check); e.bytes < tc.measured<<20 {
			t.Errorf("%d processes, %s, check %v: estimate %s, measured %d MiB", tc.procs, tc.alg, tc.check, FormatBytes(e.bytes), tc.measured)
		}
	}
	if e := replayEstimate(sizes(2_000_000), []string{"ms"}, false); !strings.Contains(e.why, "a Rollback to each of 2000000 processes") {
		t.Errorf("why %q, want the Rollback broadcast named", e.why)
	}
}

// TestFitsAtOnceBaseline: explore's estimate counts the uncoordinated
// baseline it reads, a line of every process for each failure point:
// 3,000 processes of one message make 3,002 points, about 620 MiB of
// lines (measured at 2,000 processes, 230 MiB), which a 300MiB cap
// refuses though each replay is small.
func TestFitsAtOnceBaseline(t *testing.T) {
	procs := make([]string, 3000)
	for i := range procs {
		procs[i] = fmt.Sprintf("P%d", i)
	}
	tr, err := tracetest.NewBuilder(procs...).Send(1, "P0", "P1", "m1").Recv(2, "P1", "m1").Build()
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = "t.json"
	p := &Pipeline{Mem: &Cap{Bytes: 300 << 20}}
	err = p.FitsAtOnce(tr, []string{"ms", "pk"}, true, 1, 2)
	if err == nil || !strings.Contains(err.Error(), "the uncoordinated baseline: a line of 3000 processes for each of 3002 failure points") {
		t.Errorf("got %v, want a refusal naming the baseline", err)
	}
	if err := p.FitsAtOnce(tr, []string{"ms", "pk"}, true, 0, 2); err != nil {
		t.Errorf("no failure injected, no baseline: %v", err)
	}
}

// TestStreamedTicksShareVectors (redteam10 F6): a tick after which its
// process did nothing makes no vector — PK's clock hands out its last
// one, and the run shares its entry — so the streamed estimate counts
// only the ticks that follow a receive, an internal op or a fail. It
// counted every tick, and a trace of many ticks between few ops was
// estimated at ten times its peak, refused under caps it fits in.
func TestStreamedTicksShareVectors(t *testing.T) {
	text := `{"format":"ckpt/trace@1","processes":["P0","P1"],"events":[
{"t":1,"p":"P0","kind":"checkpoint"},{"t":2,"p":"P0","kind":"checkpoint"},
{"t":3,"p":"P0","kind":"internal"},{"t":4,"p":"P0","kind":"checkpoint"},{"t":5,"p":"P0","kind":"checkpoint"},
{"t":6,"p":"P0","kind":"send","to":"P1","msg":"m"},{"t":7,"p":"P0","kind":"checkpoint"},
{"t":8,"p":"P1","kind":"recv","msg":"m"},{"t":9,"p":"P1","kind":"checkpoint"},{"t":10,"p":"P1","kind":"checkpoint"},
{"t":11,"p":"P0","kind":"flush"},{"t":12,"p":"P0","kind":"checkpoint"},
{"t":20,"p":"P1","kind":"fail"},{"t":30,"p":"P1","kind":"checkpoint"}]}`
	tr, err := codec.ReadTrace("t.json", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	// Ticks that make a vector: P0's first and the one after its
	// internal op; P1's after its receive and after its restart.
	const want = 4
	// The estimate counts those up to the point past which no recovery
	// comes (P1's last tick lies beyond), and two per busy process
	// (streamedSizes); it counted all 8 ticks to that point.
	s := replay.SizesOf(tr)
	if got := streamedSizes(tr, s, trace.Params{}).Checkpoints; got != want-1+2*s.Busy {
		t.Errorf("streamed sizes count %d checkpoint vectors, want %d", got, want-1+2*s.Busy)
	}
	alg, err := pk.New("", tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, alg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The vectors its ticks made: those no send carried before.
	made := map[*trace.VTEntry]bool{}
	for _, e := range run.Events {
		if pb := run.PB(&e); e.Kind == trace.Send && pb != nil {
			made[&pb.VT[0]] = false
		}
		if vt := run.VTOf(&e); e.Kind == trace.Checkpoint && vt != nil && !made[&vt[0]] {
			if _, sent := made[&vt[0]]; !sent {
				made[&vt[0]] = true
			}
		}
	}
	ticks := 0
	for _, byTick := range made {
		if byTick {
			ticks++
		}
	}
	if ticks != want {
		t.Errorf("pk's ticks made %d vectors, the estimate counts %d: the rule of streamedSizes no longer holds", ticks, want)
	}
}
