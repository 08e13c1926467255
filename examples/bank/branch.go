//go:build unix

package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ckpt-dev/ckpt/algorithms/ms"
	"github.com/ckpt-dev/ckpt/record"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// config is what the driver tells a branch process (environment
// variable BANK_BRANCH, as JSON).
type config struct {
	Index, Procs, Transfers int
	Seed                    uint64
	Tick, Gap               time.Duration
	Relay, Dir              string
	// FailedAt is when the crash this start recovers from happened (Unix
	// ns, as the driver saw it); 0 on the first start.
	FailedAt int64
	NoLog    bool
}

// branch is one bank branch: its program run by a small MS runtime that
// executes MS's effects for real.
type branch struct {
	cfg   config
	names []string
	me    replay.Proc
	prog  []op
	ms    *ms.Live
	rec   *record.Recorder
	j     *journal
	w     *bufio.Writer
	in    chan *frame // frames from the relay
	fx    []replay.Effect
	cur   entry // the step being made

	// Stable, rebuilt from the journal at a restart.
	snaps    map[int32]state
	logs     map[replay.CopyID][]byte
	taken    map[copyRef]bool
	nextCopy replay.CopyID
	restarts int32

	// Volatile.
	st       state
	box      []*copyIn               // data copies in arrival order
	replayed map[int32]replay.CopyID // the replay log: op → logged copy
	held     bool                    // the receive waits for a Rollback request
	blocked  bool                    // the receive waits for a copy
	exec     time.Time               // when the last op ran, or the restore
	start    time.Time
	ticks    int
	handled  int64 // frames handled on this connection
	reported int64 // handled when it last said it was idle
	skipped  bool  // MS asked for a log entry that --nolog skipped
}

// copyIn is a copy in the mailbox, or taken from the log.
type copyIn struct {
	ref  copyRef
	msg  string
	wire []byte
	pb   *trace.Piggyback
	via  trace.Via
	id   replay.CopyID
}

// runBranch is a branch process's main.
func runBranch(cfg config) error {
	b := &branch{cfg: cfg, me: replay.Proc(cfg.Index), reported: -1, in: make(chan *frame, 64),
		snaps: map[int32]state{}, logs: map[replay.CopyID][]byte{}, taken: map[copyRef]bool{},
		replayed: map[int32]replay.CopyID{}, nextCopy: 1}
	for i := range cfg.Procs {
		b.names = append(b.names, name(i))
	}
	progs, _ := programs(cfg.Seed, cfg.Procs, cfg.Transfers)
	b.prog = progs[cfg.Index]
	b.ms = ms.NewLive(b.names, failureSeq)
	b.st = state{Bal: slices.Repeat([]int64{opening}, accounts)}
	b.snaps[0] = b.st.clone()
	if err := b.recover(); err != nil {
		return err
	}
	return b.loop()
}

// recover rebuilds the branch from its journal and recording, joins the
// network and, after a crash, restarts MS.
func (b *branch) recover() error {
	me := b.names[b.me]
	j, steps, err := openJournal(filepath.Join(b.cfg.Dir, "state", me+".journal"))
	if err != nil {
		return err
	}
	b.j = j
	for i := range steps {
		b.rebuild(&steps[i])
	}
	path := filepath.Join(b.cfg.Dir, "rec", me+".jsonl")
	cut := int64(0)
	if len(steps) > 0 {
		cut = steps[len(steps)-1].Rec
	}
	if err := os.Truncate(path, cut); err != nil && !os.IsNotExist(err) {
		return err
	}
	if b.rec, err = record.Open(me, path, record.Options{Processes: b.names, Algorithm: "ms"}); err != nil {
		return err
	}
	pending, err := b.join()
	if err != nil {
		return err
	}
	now := time.Now() // the timer's start, and op 0's due time: P0's first tick comes first
	b.start, b.exec = now, now
	if len(steps) > 0 {
		if err := b.redo(&steps[len(steps)-1]); err != nil {
			return err
		}
		err = b.restart(pending)
	} else if err = b.commit(); err == nil { // the header
		// A first start can find requests: a branch failed before this
		// one was up.
		for _, f := range pending {
			if err = b.control(f); err != nil {
				break
			}
		}
	}
	if err != nil {
		return err
	}
	return b.send(&frame{Kind: kReady})
}

// rebuild takes up one journaled step: MS steps through its input again,
// and what it made stable is kept.
func (b *branch) rebuild(e *entry) {
	if e.In != nil {
		b.fx = b.ms.Step(e.In, b.fx[:0])
		b.nextCopy = max(b.nextCopy, e.In.Copy+1)
		if e.In.Kind == replay.InRestart {
			b.restarts++
		}
	}
	for _, s := range e.Snaps {
		b.snaps[s.ID] = s.State
	}
	for _, l := range e.Logs {
		b.logs[l.Copy] = l.Wire
	}
	for _, t := range e.Takes {
		b.taken[t] = true
	}
}

// join connects to the relay and takes what waited for the branch: data
// copies into the mailbox, control messages returned (they arrived
// while it was down).
func (b *branch) join() ([]*frame, error) {
	conn, err := net.Dial("tcp", b.cfg.Relay)
	if err != nil {
		return nil, err
	}
	b.w = bufio.NewWriter(conn)
	go func() {
		r := bufio.NewReader(conn)
		for {
			f, err := readFrame(r)
			if err != nil {
				os.Exit(3) // the relay is gone: the run is over
			}
			b.in <- f
		}
	}()
	if err := b.send(&frame{Kind: kHello, Name: b.names[b.me]}); err != nil {
		return nil, err
	}
	var pending []*frame
	for f := range b.in {
		b.handled++
		switch f.Kind {
		case kBacklog:
			return pending, nil
		case kControl:
			if h, _, err := record.Parse(f.Wire); err == nil && !b.seen(h) {
				pending = append(pending, f)
			}
		case kData:
			b.arrive(f)
		}
	}
	return nil, nil
}

// seen reports whether the copy h describes was consumed in a step the
// journal holds (the take may not have reached the network), and takes
// it again if so.
func (b *branch) seen(h record.Header) bool {
	ref := copyRef{h.From, h.Tx}
	if b.taken[ref] {
		b.send(&frame{Kind: kTake, From: ref.From, Tx: ref.Tx})
		return true
	}
	return false
}

// restart records the crash and restarts MS: it restores the latest
// checkpoint, sends its Rollback requests and applies the requests that
// came while the branch was down.
func (b *branch) restart(pending []*frame) error {
	if err := b.rec.Fail(time.Unix(0, b.cfg.FailedAt)); err != nil {
		return err
	}
	in := &replay.Input{Kind: replay.InRestart, P: b.me, Failure: failureSeq(int32(b.me), b.restarts+1)}
	for _, f := range pending {
		h, err := b.rec.ControlRecv(f.Wire)
		if err != nil {
			return err
		}
		in.Pending = append(in.Pending, replay.ControlMsg{From: b.proc(h.From), Control: h.Control,
			Body: h.Body, Failure: seqOf(h.Failure, b.names)})
		b.cur.Takes = append(b.cur.Takes, copyRef{h.From, h.Tx})
	}
	b.restarts++
	_, err := b.step(in, nil)
	return err
}

// failureSeq names origin's count-th failure by a replay.Seq, as MS
// hands failures back (ms.NewLive): origin in the high bits, count in
// the low ones.
func failureSeq(origin, count int32) replay.Seq { return replay.Seq(origin<<16 | count) }

func seqOf(f record.Failure, names []string) replay.Seq {
	if f.P == "" {
		return 0
	}
	return failureSeq(int32(slices.Index(names, f.P)), f.N)
}

// failure names the failure s for the recorder.
func (b *branch) failure(s replay.Seq) record.Failure {
	if s == 0 {
		return record.Failure{}
	}
	return record.Failure{P: b.names[s>>16], N: int32(s & 0xffff)}
}

func (b *branch) proc(name string) replay.Proc { return replay.Proc(slices.Index(b.names, name)) }

func (b *branch) send(f *frame) error { return writeFrame(b.w, f) }

// must stops the branch on an error it cannot go on from; the driver
// sees the exit status and fails the run.
func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "branch:", err)
		os.Exit(1)
	}
}
