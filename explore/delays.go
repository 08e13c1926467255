package explore

import (
	"cmp"
	"math/big"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Delay choices (--delays, docs/explore.md "Delays"). The network of SPEC
// §3 gives message m the delay its trace records, recv time minus send
// time. --delays also lets m arrive later:
//
//   - just after another message m' to the same receiver that was in
//     flight at the same time (sent before m arrived, arriving after it):
//     1 ns after m' arrives, so the two arrivals swap. At most
//     maxOvertakes such m', the nearest first;
//   - late: 1 ns after a Rollback request or token from a crash of its
//     sender right after the send would arrive (restart_delay +
//     control_delay after the send), so m outlives a recovery.
//
// A receive cannot take a message before it arrives, so a later arrival
// delays the receive and everything its process does after it: the trace
// is re-timed as the failure-free replay would run it (retime), and the
// failure points are those of the re-timed trace.

// maxOvertakes bounds the "arrive after m'" choices per message.
const maxOvertakes = 3

// delayChoices lists, per message of tr, the extra delays it may get;
// choice 0 is always 0 (the recorded delay). Messages the trace never
// receives have only choice 0. A delay already listed is not listed
// again: two choices with the same delay are the same schedule.
func delayChoices(tr *trace.Trace) [][]trace.Time {
	params := tr.Params
	out := make([][]trace.Time, len(tr.Msgs))
	for m, msg := range tr.Messages {
		out[m] = []trace.Time{0}
		add := func(d trace.Time) {
			if !slices.Contains(out[m], d) {
				out[m] = append(out[m], d)
			}
		}
		if msg.Recv == trace.None {
			continue
		}
		send, recv := &tr.Events[msg.Send], &tr.Events[msg.Recv]
		arrive := recv.T
		n := 0
		for i := msg.Recv + 1; i < int32(len(tr.Events)) && n < maxOvertakes; i++ {
			ev := &tr.Events[i]
			if ev.Kind != trace.Recv || ev.P != recv.P || tr.Messages[ev.Msg].Send >= msg.Recv {
				continue
			}
			add(ev.T + 1 - arrive)
			n++
		}
		late := params.RestartDelay + params.ControlDelay - (recv.T - send.T) + 1
		add(max(late, 1))
	}
	return out
}

// vectorCount is the number of delay vectors: the product of the choice
// counts.
func vectorCount(choices [][]trace.Time) *big.Int {
	v := big.NewInt(1)
	for _, c := range choices {
		if len(c) > 1 {
			v.Mul(v, big.NewInt(int64(len(c))))
		}
	}
	return v
}

// indexDigits returns the delay vector of index vec, counting the
// vectors with message 0's choice the fastest.
func indexDigits(vec uint64, choices [][]trace.Time) []int32 {
	digits := make([]int32, len(choices))
	for m, c := range choices {
		if n := uint64(len(c)); n > 1 {
			digits[m], vec = int32(vec%n), vec/n
		}
	}
	return digits
}

// retime returns a copy of tr in which every message m arrives extra[m]
// later than recorded, timed as the failure-free replay would run it: op
// k of p becomes ready gap_k after op k-1 happened, and a receive happens
// once it is ready and its message has arrived. Environment events keep
// their absolute times. Events are re-sorted by time, ties by their
// original order, and the result is validated.
func retime(tr *trace.Trace, extra []trace.Time) (*trace.Trace, error) {
	evs := slices.Clone(tr.Events)
	exec := make([]trace.Time, len(tr.Processes))
	prevT := make([]trace.Time, len(tr.Processes))
	for i := range tr.Events {
		ev := &tr.Events[i]
		if !ev.Kind.IsOp() {
			continue
		}
		ready := exec[ev.P] + (ev.T - prevT[ev.P])
		prevT[ev.P] = ev.T
		if ev.Kind == trace.Recv {
			// The send comes first: evs holds its new time.
			s := tr.Messages[ev.Msg].Send
			arrive := evs[s].T + (ev.T - tr.Events[s].T) + extra[ev.Msg]
			ready = max(ready, arrive)
		}
		evs[i].T, exec[ev.P] = ready, ready
	}
	slices.SortStableFunc(evs, func(a, b trace.Event) int { return cmp.Compare(a.T, b.T) })
	return withEvents(tr, tr.Params, evs)
}

// extraOf returns the extra delay per message that digits choose, or nil
// when every message keeps its recorded delay.
func extraOf(digits []int32, choices [][]trace.Time) []trace.Time {
	var extra []trace.Time
	for m, d := range digits {
		if d != 0 {
			if extra == nil {
				extra = make([]trace.Time, len(choices))
			}
			extra[m] = choices[m][d]
		}
	}
	return extra
}
