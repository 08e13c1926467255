package pk

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/measure"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// specCase is a conformance check of SPEC §5–§7/§9 on a hand-written
// trace under testdata/spec: the PK run must verify clean, and the
// report's recovery of the first failure must read exactly as written.
type specCase struct {
	file string
	// ann is the announcement as "inc/k".
	ann string
	// line is, per process, "restore pos undone replayed resent cause"
	// ("-" for a process that restored nothing).
	line []string
	// events lists run events that must be present, as
	// "p kind key=value ..." matched against fmtEvent.
	events []string
}

var specCases = []specCase{
	{
		// P1 restarts from checkpoint 0, replays m1 from its stable log,
		// resends m2 (live) and stops before m3 (volatile): k = 2. P2 and
		// P0 undo exactly their orphan suffix; P0 resends m3, which the
		// token's set lacks. The restart's resend is charged to P1 even
		// though it is written before the restart event.
		file: "classic.json", ann: "0/2",
		line: []string{
			"1 2 1 0 1 token",
			"0 2 2 1 1 restart",
			"0 1 2 1 0 token",
		},
		events: []string{
			"P1 send msg=m2 resend=true of=1 failure=12",
			"P1 restart restore=0 pos=2 undone=2 inc=1",
			"P0 send msg=m3 resend=true of=1 failure=12",
		},
	},
	{
		// A checkpoint flushes the volatile log first and writes one
		// log event per entry made stable (c), none when nothing is
		// volatile; the restart restores the latest checkpoint.
		file: "ckflush.json", ann: "0/4",
		line: []string{
			"- 4 0 0 0 none",
			"2 4 0 0 0 restart",
		},
		events: []string{
			"P1 log msg=c op=2",
			"P1 checkpoint ckpt=2 pos=4",
		},
	},
	{
		// Ops the restart's replay runs for the first time (op 2, op 3)
		// are ordinary app events before the restart, and pos counts
		// them.
		file: "firsttime.json", ann: "0/4",
		line: []string{
			"- 2 0 0 0 none",
			"0 4 0 1 1 restart",
		},
		events: []string{
			"P1 internal op=2",
			"P1 send msg=c op=3 copy=1",
			"P1 restart restore=0 pos=4 undone=0 inc=1",
		},
	},
}

// fmtEvent renders the fields of e that specCase.events may name.
func fmtEvent(run *trace.Run, e *trace.RunEvent) map[string]string {
	m := map[string]string{"p": run.Processes[e.P], "kind": e.Kind.String()}
	if e.Msg >= 0 {
		m["msg"] = run.Msgs[e.Msg]
	}
	for k, v := range map[string]int32{"op": e.Op, "copy": e.Copy, "of": e.Of, "failure": e.Failure,
		"restore": e.Restore, "pos": e.Pos, "undone": e.Undone, "inc": e.Inc, "ckpt": e.Ckpt} {
		if v != trace.None {
			m[k] = fmt.Sprint(v)
		}
	}
	if e.Resend {
		m["resend"] = "true"
	}
	return m
}

func hasEvent(run *trace.Run, want string) bool {
	f := strings.Fields(want)
next:
	for i := range run.Events {
		m := fmtEvent(run, &run.Events[i])
		if m["p"] != f[0] || m["kind"] != f[1] {
			continue
		}
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			if m[k] != v {
				continue next
			}
		}
		return true
	}
	return false
}

func TestSpecConformance(t *testing.T) {
	for _, tc := range specCases {
		t.Run(tc.file, func(t *testing.T) {
			tr, err := codec.ReadTraceFile(filepath.Join("testdata", "spec", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			run := replayPK(t, tr)
			rep, m := consistency.Judge(run, tr)
			measure.Fill(&rep, m, measure.StartBaseline(tr))
			if !rep.Valid {
				t.Errorf("not valid: %v", failing(run, tr))
			}
			for _, p := range rep.Properties {
				if p.Status == report.Unknown {
					t.Errorf("%s is unknown with the source trace", p.Name)
				}
			}
			if len(rep.Recoveries) == 0 {
				t.Fatal("no recovery")
			}
			rec := rep.Recoveries[0]
			if rec.RecLine != nil {
				t.Errorf("rec_line = %d, want null for PK", *rec.RecLine)
			}
			if rec.Announcement == nil || fmt.Sprintf("%d/%d", rec.Announcement.Inc, rec.Announcement.K) != tc.ann {
				t.Errorf("announcement = %+v, want %s", rec.Announcement, tc.ann)
			}
			for p, want := range tc.line {
				l := rec.Line[p]
				restore := "-"
				if l.Restore != nil {
					restore = fmt.Sprint(*l.Restore)
				}
				if l.Sn != nil {
					t.Errorf("%s: sn = %d, want null for PK", l.P, *l.Sn)
				}
				got := fmt.Sprintf("%s %d %d %d %d %s", restore, l.Pos, l.Undone, l.Replayed, l.Resent, l.Cause)
				if got != want {
					t.Errorf("%s line = %q, want %q", l.P, got, want)
				}
			}
			for _, want := range tc.events {
				if !hasEvent(run, want) {
					t.Errorf("no event %q in the run", want)
				}
			}
		})
	}
}
