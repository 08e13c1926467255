package rdt

import "fmt"

// Property is the checker's name for rollback-dependency trackability in
// reports: "rdt".
const Property = "rdt"

// Names are the checker's names for a pattern's parts, so that a
// violation explains itself in the report's terms. Any nil function
// falls back to a plain default ("P1", "message 3", "C(1,2)").
type Names struct {
	// Proc names process p.
	Proc func(p int32) string
	// Msg names the message with index i in the msgs given to Judge.
	Msg func(i int32) string
	// Ckpt names a checkpoint: c.X indexes the process's positions as
	// given to Judge (0 the initial checkpoint); c.X equal to their count
	// is the process's final state.
	Ckpt func(c Checkpoint) string
}

func (n *Names) proc(p int32) string {
	if n.Proc != nil {
		return n.Proc(p)
	}
	return fmt.Sprintf("P%d", p)
}

func (n *Names) msg(i int32) string {
	if n.Msg != nil {
		return n.Msg(i)
	}
	return fmt.Sprintf("message %d", i)
}

func (n *Names) ckpt(c Checkpoint) string {
	if n.Ckpt != nil {
		return n.Ckpt(c)
	}
	return fmt.Sprintf("C(%d,%d)", c.P, c.X)
}

// Finding is a violation ready for a report: a one-line Message and the
// Because chain. The witnesses are the Violation's: the messages M1 and M2
// (indexes into Judge's msgs: the checker reports their send and receive
// seqs) and the checkpoints From and To (their seqs; To may be a final
// state, which has none).
type Finding struct {
	Violation
	Message, Because string
}

// Judge checks RDT over a checker's final live history: live[p] holds the
// positions (ops completed when taken) of p's live checkpoints in order,
// live[p][0] = 0 being the initial one, and msgs the messages with both
// ends live (send and receive ops are positions in the live histories).
// Each process's final state counts as its last checkpoint (see the
// package comment). It returns the violations, explained with names, in
// Check's order; none means the history is rollback-dependency
// trackable. Bad input is an error, never a panic.
func Judge(live [][]int32, msgs []Msg, names Names) ([]Finding, error) {
	ckpts := make([][]int32, len(live))
	for p, cs := range live {
		if len(cs) == 0 || cs[0] != 0 {
			return nil, fmt.Errorf("rdt: process %d: the first checkpoint must be the initial one at position 0", p)
		}
		ckpts[p] = cs[1:]
	}
	vs, err := Check(ckpts, msgs)
	if err != nil {
		return nil, err
	}
	out := make([]Finding, len(vs))
	for i, v := range vs {
		out[i] = explain(v, msgs, &names)
	}
	return out, nil
}

// explain words violation v: a causal path from From reaches q (the
// receiver of M1, the sender of M2) with M1 only after q sent M2 in the
// same interval, and M2 reaches b before To, so [.. M1, M2] is a Z-path
// from From to To that no causal path doubles.
func explain(v Violation, msgs []Msg, n *Names) Finding {
	m1, m2 := msgs[v.M1], msgs[v.M2]
	q, b := n.proc(m2.From), n.proc(m2.To)
	from, to := n.ckpt(v.From), n.ckpt(v.To)
	f := Finding{Violation: v}
	f.Message = fmt.Sprintf("the rollback dependency of %s on %s is not trackable (Z-path through %s and %s not causally doubled)", to, from, n.msg(v.M1), n.msg(v.M2))
	f.Because = fmt.Sprintf("a causal path from %s reaches %s only with %s (from %s), which %s received after it had sent %s in the same checkpoint interval; %s received %s before %s. So a Z-path leads from %s to %s",
		from, q, n.msg(v.M1), n.proc(m1.From), q, n.msg(v.M2), b, n.msg(v.M2), to, from, to)
	if v.From.P == v.To.P {
		f.Because += fmt.Sprintf(" — back to %s's own %s, where no causal path can double it: %s lies on a Z-cycle through %s and is useless", b, to, from, to)
	} else {
		f.Because += fmt.Sprintf(", and no causal path does: %s does not know of %s when it is taken", to, from)
	}
	f.Because += ", so the dependency cannot be tracked on-line (RDT, Wang 1997), which FDAS promises"
	return f
}
