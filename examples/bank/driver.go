//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/ckpt-dev/ckpt/trace/codec"

	json "github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/record"
	"github.com/ckpt-dev/ckpt/trace"
)

// options are a bank run's flags.
type options struct {
	Procs, Crashes, Transfers int
	Seed                      uint64
	Out                       string
	Tick, Gap, Down, Timeout  time.Duration
	NoLog                     bool
}

// outcome is what a run shows.
type outcome struct {
	Start, End int64 // the sum of all balances, at the start and at the end
	Crashes    int   // SIGKILLs: the driver's, and --nolog's own
	Ends       []string
}

// node is the driver's view of one branch; the driver is also the
// network between branches (relay.go).
type node struct {
	i      int
	name   string
	conn   net.Conn
	w      *bufio.Writer
	box    []queued // frames for it not yet taken, in arrival order
	pushed int64    // frames sent on its connection
	idle   int64    // frames it had handled when it last said it was idle; -1: busy
	ready  bool     // up and recovered
	proc   *os.Process
	killed bool // by the driver
	stderr bytes.Buffer
	bye    *frame
}

type queued struct {
	kind kind
	ref  copyRef
	wire []byte
}

type driver struct {
	o        options
	addr     string // the network's, on 127.0.0.1
	nodes    []*node
	byConn   map[net.Conn]*node
	seen     map[copyRef]bool // every frame the network has had
	events   chan func()      // the driver's state is only touched by the loop
	rng      *rand.Rand
	crashAt  []int // data frames relayed before each crash, ascending
	data     int
	next     int // the next crash
	crashes  int
	late     bool // the timeout has passed
	stopping bool
	err      error
}

// drive runs the bank: starts the branches, kills some at random
// moments and restarts them, stops the run when nothing is left to do,
// and merges the recordings into o.Out/run.json and o.Out/trace.json.
func drive(o options) (*outcome, error) {
	for _, sub := range []string{"rec", "state"} {
		if err := os.RemoveAll(filepath.Join(o.Out, sub)); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Join(o.Out, sub), 0o755); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	d := &driver{o: o, byConn: map[net.Conn]*node{}, seen: map[copyRef]bool{}, events: make(chan func(), 1024),
		rng: rand.New(rand.NewPCG(o.Seed, 0xc4a54)), addr: ln.Addr().String()}
	for range o.Crashes {
		d.crashAt = append(d.crashAt, 1+d.rng.IntN(max(o.Transfers-1, 1)))
	}
	slices.Sort(d.crashAt)
	go d.accept(ln)
	defer d.killAll()
	for i := range o.Procs {
		d.nodes = append(d.nodes, &node{i: i, name: name(i), idle: -1})
		d.spawn(d.nodes[i], time.Time{})
	}
	deadline := time.AfterFunc(o.Timeout, func() { d.post(d.timeout) })
	defer deadline.Stop()
	for d.err == nil && !d.over() {
		(<-d.events)()
	}
	if d.err != nil {
		return nil, d.err
	}
	return d.outcome()
}

// post runs f on the driver's loop.
func (d *driver) post(f func()) { d.events <- f }

func (d *driver) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// spawn starts branch n; failedAt is the crash it recovers from.
func (d *driver) spawn(n *node, failedAt time.Time) {
	cfg := config{Index: n.i, Procs: d.o.Procs, Transfers: d.o.Transfers, Seed: d.o.Seed, Tick: d.o.Tick,
		Gap: d.o.Gap, Relay: d.addr, Dir: d.o.Out, NoLog: d.o.NoLog}
	if !failedAt.IsZero() {
		cfg.FailedAt = failedAt.UnixNano()
	}
	env, _ := json.Marshal(cfg)
	exe, err := os.Executable()
	if err != nil {
		d.fail(err)
		return
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "BANK_BRANCH="+string(env))
	n.stderr.Reset()
	cmd.Stderr = &n.stderr
	if err := cmd.Start(); err != nil {
		d.fail(err)
		return
	}
	n.proc = cmd.Process
	go func() {
		err := cmd.Wait()
		d.post(func() { d.exited(n, err) })
	}()
}

// exited handles a branch's exit: after a SIGKILL (a crash), it is
// restarted Down later; at the end it is expected; else the run fails.
func (d *driver) exited(n *node, err error) {
	n.proc = nil
	var ee *exec.ExitError
	switch {
	case d.stopping && err == nil:
	case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL && !d.stopping:
		failedAt := time.Now() // after the exit: no event of it is later
		if !n.killed {
			d.crashes++ // --nolog's own crash
		}
		n.killed = false
		time.AfterFunc(d.o.Down, func() { d.post(func() { d.spawn(n, failedAt) }) })
	default:
		d.fail(fmt.Errorf("%s exited: %v\n%s", n.name, err, n.stderr.String()))
	}
}

// maybeCrash kills a random recovered branch for every crash whose
// moment (a number of transfers relayed) has come.
func (d *driver) maybeCrash() {
	for d.next < len(d.crashAt) && d.data >= d.crashAt[d.next] && !d.stopping {
		var up []*node
		for _, n := range d.nodes {
			if n.ready && n.proc != nil {
				up = append(up, n)
			}
		}
		if len(up) == 0 {
			return // when one is back
		}
		n := up[d.rng.IntN(len(up))]
		n.killed, n.ready = true, false
		n.proc.Signal(syscall.SIGKILL)
		d.crashes++
		d.next++
	}
}

// maybeStop stops the run once every crash has happened and every
// branch is up and idle with nothing on its way to it (or, after the
// timeout, once every branch is up).
func (d *driver) maybeStop() {
	if d.stopping || d.next < len(d.crashAt) {
		return
	}
	for _, n := range d.nodes {
		if !n.ready || n.conn == nil || (!d.late && n.idle != n.pushed) {
			return
		}
	}
	d.stopping = true
	for _, n := range d.nodes {
		d.push(n, &frame{Kind: kStop})
	}
	time.AfterFunc(10*time.Second, func() {
		d.post(func() { d.fail(errors.New("the branches did not stop")) })
	})
}

func (d *driver) timeout() {
	d.late, d.next = true, len(d.crashAt)
	d.maybeStop()
	time.AfterFunc(10*time.Second, func() {
		d.post(func() { d.fail(errors.New("a branch did not come back up")) })
	})
}

// over reports whether every branch has stopped: exited, and its
// connection read to the end (its balances come before that).
func (d *driver) over() bool {
	for _, n := range d.nodes {
		if !d.stopping || n.proc != nil || n.conn != nil {
			return false
		}
	}
	return true
}

func (d *driver) killAll() {
	for _, n := range d.nodes {
		if n.proc != nil {
			n.proc.Kill()
		}
	}
}

// outcome sums the balances and merges the recordings.
func (d *driver) outcome() (*outcome, error) {
	out := &outcome{Start: int64(d.o.Procs * accounts * opening), Crashes: d.crashes}
	var paths []string
	for _, n := range d.nodes {
		if n.bye == nil {
			return nil, fmt.Errorf("%s stopped without its balances", n.name)
		}
		for _, b := range n.bye.Bal {
			out.End += b
		}
		out.Ends = append(out.Ends, n.bye.State)
		paths = append(paths, filepath.Join(d.o.Out, "rec", n.name+".jsonl"))
	}
	m, err := record.MergeFiles(os.Stdin, paths...)
	if err != nil {
		return nil, err
	}
	m.Run.Source = "trace.json"
	if err := d.unreached(m.Trace); err != nil {
		return nil, err
	}
	if err := output.Write(filepath.Join(d.o.Out, "trace.json"), nil, func(w io.Writer) error {
		return codec.WriteTrace(w, m.Trace, codec.WriteOptions{})
	}); err != nil {
		return nil, err
	}
	return out, output.Write(filepath.Join(d.o.Out, "run.json"), nil, func(w io.Writer) error {
		return codec.WriteRun(w, m.Run, codec.WriteOptions{})
	})
}

// unreached completes the trace Merge derived: the recordings show the
// ops some execution reached, and a branch stuck for good (--nolog)
// never reached the rest of its program. The driver knows the programs:
// it adds those ops at the end of the run, in the order they were drawn
// in (every receive after its send), so that the checker judges the
// branches against their whole programs.
func (d *driver) unreached(tr *trace.Trace) error {
	progs, order := programs(d.o.Seed, d.o.Procs, d.o.Transfers)
	reached := make([]int, d.o.Procs)
	var end trace.Time
	for _, e := range tr.Events {
		if e.Kind.IsOp() {
			reached[e.P]++
		}
		end = e.T
	}
	msgs := map[string]int32{}
	for i, m := range tr.Msgs {
		msgs[m] = int32(i)
	}
	for _, s := range order {
		p, k := s[0], s[1]
		if k < reached[p] {
			continue
		}
		o := progs[p][k]
		e := trace.Event{T: end, Kind: o.Kind, P: int32(p), To: trace.None, Msg: trace.None}
		if o.Kind != trace.Internal {
			if _, ok := msgs[o.Msg]; !ok {
				msgs[o.Msg] = int32(len(tr.Msgs))
				tr.Msgs = append(tr.Msgs, o.Msg)
			}
			e.Msg = msgs[o.Msg]
		}
		if o.Kind == trace.Send {
			e.To = int32(o.Peer)
		}
		tr.Events = append(tr.Events, e)
	}
	return trace.Validate(tr)
}
