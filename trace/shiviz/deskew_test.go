package shiviz

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
)

// msg is one message of a test execution: event send of process from
// sends it and event recv of process to receives it (indexes into the
// times of those processes).
type msg struct {
	from, send int32
	to, recv   int32
}

// deskewTimes builds the execution of times (times[p] holds process p's
// event times in its order) and msgs, deskews it and writes the times
// back.
func deskewTimes(times [][]trace.Time, msgs []msg) (shift []trace.Time, consistent bool, raised int, err error) {
	ex := &Execution{}
	index := make([][]int32, len(times))
	for p, ts := range times {
		ex.Hosts = append(ex.Hosts, fmt.Sprint("p", p))
		for k, t := range ts {
			index[p] = append(index[p], int32(len(ex.Events)))
			ex.Events = append(ex.Events, Event{Host: int32(p), Own: int32(k + 1), Time: t})
		}
	}
	for _, m := range msgs {
		s, r := index[m.from][m.send], index[m.to][m.recv]
		ex.Events[s].Children = append(ex.Events[s].Children, r)
		ex.Events[r].Parents = append(ex.Events[r].Parents, s)
	}
	per := perHost(ex)
	if ex.order(per) != nil {
		return nil, false, 0, fmt.Errorf("a cycle")
	}
	if shift, consistent, raised, err = ex.deskew(per); err == nil {
		for p := range times {
			for k, e := range index[p] {
				times[p][k] = ex.Events[e].Time
			}
		}
	}
	return shift, consistent, raised, err
}

func TestDeskew(t *testing.T) {
	for _, tc := range []struct {
		name       string
		times      [][]trace.Time
		msgs       []msg
		want       [][]trace.Time
		shift      []trace.Time
		consistent bool
		raised     int
		err        string
	}{
		{name: "agreeing clocks stay",
			times: [][]trace.Time{{10, 50}, {20, 30}},
			msgs:  []msg{{0, 0, 1, 0}, {1, 1, 0, 1}},
			want:  [][]trace.Time{{10, 50}, {20, 30}}, shift: []trace.Time{0, 0}, consistent: true},
		{name: "server clock behind: shifted by the least that fits",
			// the call's request arrives 65 before it is sent; the
			// response leaves the server 75 before the client gets it.
			times: [][]trace.Time{{100, 200}, {35, 125}},
			msgs:  []msg{{0, 0, 1, 0}, {1, 1, 0, 1}},
			want:  [][]trace.Time{{100, 200}, {100, 190}}, shift: []trace.Time{0, 65}, consistent: true},
		{name: "shifts compose along a chain",
			times: [][]trace.Time{{100}, {50, 60}, {0}},
			msgs:  []msg{{0, 0, 1, 0}, {1, 1, 2, 0}},
			want:  [][]trace.Time{{100}, {100, 110}, {110}}, shift: []trace.Time{0, 50, 110}, consistent: true},
		{name: "clocks that disagree both ways are raised, not shifted",
			// the server's span is longer than the client's: no shift fits.
			times: [][]trace.Time{{100, 120}, {90, 200}},
			msgs:  []msg{{0, 0, 1, 0}, {1, 1, 0, 1}},
			want:  [][]trace.Time{{100, 200}, {100, 200}}, shift: []trace.Time{0, 0}, raised: 2},
		{name: "a process's own order is kept",
			times: [][]trace.Time{{5, 3, 7}},
			want:  [][]trace.Time{{5, 5, 7}}, shift: []trace.Time{0}, consistent: true, raised: 1},
		{name: "cycle", times: [][]trace.Time{{1, 2}, {1, 2}},
			msgs: []msg{{0, 1, 1, 0}, {1, 1, 0, 0}}, err: "cycle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shift, consistent, raised, err := deskewTimes(tc.times, tc.msgs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(tc.times, tc.want, slices.Equal) || !slices.Equal(shift, tc.shift) ||
				consistent != tc.consistent || raised != tc.raised {
				t.Errorf("got %v shift %v consistent %v raised %d, want %v shift %v consistent %v raised %d",
					tc.times, shift, consistent, raised, tc.want, tc.shift, tc.consistent, tc.raised)
			}
		})
	}
}

// TestDeskewProperties: on random executions whose clocks are offset by
// a constant per process, the result is causal, and every positive shift
// is tight (one message would break with any less), so it is the least.
func TestDeskewProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 5).Draw(t, "procs")
		times, msgs := offsetExecution(t, n)
		orig := make([][]trace.Time, n)
		for p := range times {
			orig[p] = slices.Clone(times[p])
		}
		shift, consistent, raised, err := deskewTimes(times, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if !consistent || raised != 0 {
			t.Fatalf("offset clocks must be fixed by shifts alone: consistent %v raised %d", consistent, raised)
		}
		for _, m := range msgs {
			if times[m.to][m.recv] < times[m.from][m.send] {
				t.Fatalf("message %v received at %d, sent at %d", m, times[m.to][m.recv], times[m.from][m.send])
			}
		}
		for p, s := range shift {
			tight := s == 0
			for _, m := range msgs {
				if int(m.to) == p && times[m.to][m.recv] == times[m.from][m.send] {
					tight = true
				}
			}
			if !tight || len(times[p]) > 0 && times[p][0] != orig[p][0]+s {
				t.Fatalf("shift %d of process %d is not the least", s, p)
			}
		}
	})
}

// offsetExecution draws a causal execution in true time and offsets
// each process's clock by a random constant.
func offsetExecution(t *rapid.T, n int) ([][]trace.Time, []msg) {
	times := make([][]trace.Time, n)
	var msgs []msg
	now := trace.Time(0)
	var inFlight []msg
	for k := rapid.IntRange(0, 30).Draw(t, "events"); k > 0; k-- {
		now += trace.Time(rapid.IntRange(0, 3).Draw(t, "dt"))
		p := int32(rapid.IntRange(0, n-1).Draw(t, "p"))
		i := int32(len(times[p]))
		times[p] = append(times[p], now)
		if len(inFlight) > 0 && rapid.Bool().Draw(t, "recv") {
			m := inFlight[0]
			inFlight = inFlight[1:]
			m.to, m.recv = p, i
			msgs = append(msgs, m)
		} else if rapid.Bool().Draw(t, "send") {
			inFlight = append(inFlight, msg{from: p, send: i})
		}
	}
	for p := range times {
		off := trace.Time(rapid.IntRange(-20, 20).Draw(t, "offset"))
		for i := range times[p] {
			times[p][i] += off + 20
		}
	}
	return times, msgs
}
