//go:build unix

package main

import (
	"math/rand/v2"
	"strconv"

	"github.com/ckpt-dev/ckpt/record"
	"github.com/ckpt-dev/ckpt/trace"
)

// op is one operation of a branch's program.
type op struct {
	Kind   trace.Kind // Send, Recv or Internal
	Peer   int        // Send: the receiving branch
	Msg    string     // Send: its id; Recv: the transfer it waits for
	Acct   int        // Send: the account debited; Recv: the one credited
	ToAcct int        // Send: the receiver's account to credit
	Amount int64      // Send
}

// accounts per branch, and what each starts with.
const (
	accounts = 3
	opening  = 1000
)

// programs draws every branch's program from seed: transfers random
// transfers between random branches, each branch applying the transfers
// it receives in a fixed order (a receive waits for one transfer), and
// now and then an audit. A branch is then piecewise deterministic — what
// it does depends only on what it has received, in program order — which
// is what lets MS re-execute it after a rollback (SPEC §3).
//
// The branches' programs are projections of one global order in which
// every receive follows its send, so they never deadlock. The first
// transfer is always P1's first op, received as P0's first op: with P0's
// timer ticking at its start and P1's a little later, P0 logs it on every
// schedule, which the no-log run relies on.
//
// order lists every op as (branch, index), in that global order.
func programs(seed uint64, n, transfers int) (progs [][]op, order [][2]int) {
	rng := rand.New(rand.NewPCG(seed, 0x6ba2c))
	progs = make([][]op, n)
	add := func(p int, o op) {
		order = append(order, [2]int{p, len(progs[p])})
		progs[p] = append(progs[p], o)
	}
	var pending []int // indexes into sends of transfers not yet received
	type sent struct {
		to  int
		rcv op
	}
	var sends []sent
	send := func(from, to int) {
		o := op{Kind: trace.Send, Peer: to, Msg: record.MsgID(name(from), int32(len(progs[from]))),
			Acct: rng.IntN(accounts), ToAcct: rng.IntN(accounts), Amount: 1 + rng.Int64N(50)}
		add(from, o)
		pending = append(pending, len(sends))
		sends = append(sends, sent{to, op{Kind: trace.Recv, Msg: o.Msg, Acct: o.ToAcct}})
	}
	recv := func(i int) {
		s := sends[pending[i]]
		add(s.to, s.rcv)
		pending = append(pending[:i], pending[i+1:]...)
	}
	send(1, 0)
	recv(0)
	for len(sends) < transfers || len(pending) > 0 {
		switch x := rng.Float64(); {
		case x < 0.1:
			p := rng.IntN(n)
			add(p, op{Kind: trace.Internal})
		case len(pending) > 0 && (len(sends) >= transfers || x < 0.55):
			recv(rng.IntN(len(pending)))
		default:
			from := rng.IntN(n)
			send(from, (from+1+rng.IntN(n-1))%n)
		}
	}
	return progs, order
}

// name is branch i's process name.
func name(i int) string { return "P" + strconv.Itoa(i) }
