package skew

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
)

func TestDeskew(t *testing.T) {
	for _, tc := range []struct {
		name       string
		times      [][]trace.Time
		msgs       []Msg
		want       [][]trace.Time
		shift      []trace.Time
		consistent bool
		raised     int
		err        string
	}{
		{name: "agreeing clocks stay",
			times: [][]trace.Time{{10, 50}, {20, 30}},
			msgs:  []Msg{{0, 0, 1, 0}, {1, 1, 0, 1}},
			want:  [][]trace.Time{{10, 50}, {20, 30}}, shift: []trace.Time{0, 0}, consistent: true},
		{name: "server clock behind: shifted by the least that fits",
			// the call's request arrives 65 before it is sent; the
			// response leaves the server 75 before the client gets it.
			times: [][]trace.Time{{100, 200}, {35, 125}},
			msgs:  []Msg{{0, 0, 1, 0}, {1, 1, 0, 1}},
			want:  [][]trace.Time{{100, 200}, {100, 190}}, shift: []trace.Time{0, 65}, consistent: true},
		{name: "shifts compose along a chain",
			times: [][]trace.Time{{100}, {50, 60}, {0}},
			msgs:  []Msg{{0, 0, 1, 0}, {1, 1, 2, 0}},
			want:  [][]trace.Time{{100}, {100, 110}, {110}}, shift: []trace.Time{0, 50, 110}, consistent: true},
		{name: "clocks that disagree both ways are raised, not shifted",
			// the server's span is longer than the client's: no shift fits.
			times: [][]trace.Time{{100, 120}, {90, 200}},
			msgs:  []Msg{{0, 0, 1, 0}, {1, 1, 0, 1}},
			want:  [][]trace.Time{{100, 200}, {100, 200}}, shift: []trace.Time{0, 0}, raised: 2},
		{name: "a process's own order is kept",
			times: [][]trace.Time{{5, 3, 7}},
			want:  [][]trace.Time{{5, 5, 7}}, shift: []trace.Time{0}, consistent: true, raised: 1},
		{name: "cycle", times: [][]trace.Time{{1, 2}, {1, 2}},
			msgs: []Msg{{0, 1, 1, 0}, {1, 1, 0, 0}}, err: "cycle"},
		{name: "bad index", times: [][]trace.Time{{1}}, msgs: []Msg{{0, 0, 0, 3}}, err: "do not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Deskew(tc.times, tc.msgs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(tc.times, tc.want, slices.Equal) || !slices.Equal(res.Shift, tc.shift) ||
				res.Consistent != tc.consistent || res.Raised != tc.raised {
				t.Errorf("got %v %+v, want %v shift %v consistent %v raised %d", tc.times, res, tc.want, tc.shift, tc.consistent, tc.raised)
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
		times, msgs := execution(t, n)
		orig := make([][]trace.Time, n)
		for p := range times {
			orig[p] = slices.Clone(times[p])
		}
		res, err := Deskew(times, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Consistent || res.Raised != 0 {
			t.Fatalf("offset clocks must be fixed by shifts alone: %+v", res)
		}
		for _, m := range msgs {
			if times[m.To][m.Recv] < times[m.From][m.Send] {
				t.Fatalf("message %v received at %d, sent at %d", m, times[m.To][m.Recv], times[m.From][m.Send])
			}
		}
		for p, s := range res.Shift {
			tight := s == 0
			for _, m := range msgs {
				if int(m.To) == p && times[m.To][m.Recv] == times[m.From][m.Send] {
					tight = true
				}
			}
			if !tight || len(times[p]) > 0 && times[p][0] != orig[p][0]+s {
				t.Fatalf("shift %d of process %d is not the least", s, p)
			}
		}
	})
}

// execution draws a causal execution in true time and offsets each
// process's clock by a random constant.
func execution(t *rapid.T, n int) ([][]trace.Time, []Msg) {
	times := make([][]trace.Time, n)
	var msgs []Msg
	now := trace.Time(0)
	var inFlight []Msg
	for k := rapid.IntRange(0, 30).Draw(t, "events"); k > 0; k-- {
		now += trace.Time(rapid.IntRange(0, 3).Draw(t, "dt"))
		p := int32(rapid.IntRange(0, n-1).Draw(t, "p"))
		i := int32(len(times[p]))
		times[p] = append(times[p], now)
		if len(inFlight) > 0 && rapid.Bool().Draw(t, "recv") {
			m := inFlight[0]
			inFlight = inFlight[1:]
			m.To, m.Recv = p, i
			msgs = append(msgs, m)
		} else if rapid.Bool().Draw(t, "send") {
			inFlight = append(inFlight, Msg{From: p, Send: i})
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
