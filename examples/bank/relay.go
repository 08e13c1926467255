//go:build unix

package main

import (
	"bufio"
	"fmt"
	"net"
	"slices"

	"github.com/ckpt-dev/ckpt/record"
)

// The driver is the branches' network, as SPEC §3 has it: reliable, and
// the mailbox of a branch belongs to the network — a copy stays in it
// until the branch has consumed it for good (a take, sent once the step
// that consumed it is journaled), so it survives the branch's crash and
// is sent again when the branch comes back. A frame the network already
// has (a restarted branch redoing its last step) is dropped.

func (d *driver) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			r := bufio.NewReader(c)
			for {
				f, err := readFrame(r)
				if err != nil {
					c.Close()
					d.post(func() { d.closed(c) })
					return
				}
				d.post(func() { d.frame(c, f) })
			}
		}()
	}
}

// frame handles a frame from a branch.
func (d *driver) frame(c net.Conn, f *frame) {
	n := d.byConn[c]
	if f.Kind == kHello {
		n = d.hello(c, f.Name)
	}
	if n == nil {
		d.fail(fmt.Errorf("a connection sent %d before saying who it is", f.Kind))
		return
	}
	switch f.Kind {
	case kData, kControl:
		d.relay(f)
	case kTake:
		ref := copyRef{f.From, f.Tx}
		n.box = slices.DeleteFunc(n.box, func(q queued) bool { return q.ref == ref })
	case kIdle:
		n.idle = f.N
		d.maybeStop()
	case kReady:
		n.ready = true
		d.maybeCrash()
		d.maybeStop()
	case kBye:
		n.bye = f
	}
}

// hello attaches a (re)started branch and sends it what waited for it.
func (d *driver) hello(c net.Conn, name string) *node {
	i := slices.IndexFunc(d.nodes, func(n *node) bool { return n.name == name })
	if i < 0 {
		return nil
	}
	n := d.nodes[i]
	d.byConn[c] = n
	n.conn, n.w, n.pushed, n.idle, n.ready = c, bufio.NewWriter(c), 0, -1, false
	for _, q := range n.box {
		d.push(n, &frame{Kind: q.kind, Wire: q.wire})
	}
	d.push(n, &frame{Kind: kBacklog})
	return n
}

// relay queues a data or control frame for its receiver.
func (d *driver) relay(f *frame) {
	h, _, err := record.Parse(f.Wire)
	i := slices.IndexFunc(d.nodes, func(n *node) bool { return n.name == f.To })
	if err != nil || i < 0 {
		d.fail(fmt.Errorf("a frame for %q that the network cannot deliver", f.To))
		return
	}
	ref := copyRef{h.From, h.Tx}
	if d.seen[ref] {
		return
	}
	d.seen[ref] = true
	to := d.nodes[i]
	to.box = append(to.box, queued{f.Kind, ref, f.Wire})
	d.push(to, &frame{Kind: f.Kind, Wire: f.Wire})
	if f.Kind == kData {
		d.data++
		d.maybeCrash()
	}
}

// push sends a frame to n if it is connected; a write that fails means
// n is gone, which its reader reports.
func (d *driver) push(n *node, f *frame) {
	if n.conn == nil {
		return
	}
	n.pushed++
	writeFrame(n.w, f)
}

// closed detaches a branch whose connection ended.
func (d *driver) closed(c net.Conn) {
	if n := d.byConn[c]; n != nil && n.conn == c {
		n.conn, n.ready, n.idle = nil, false, -1
	}
	delete(d.byConn, c)
}
