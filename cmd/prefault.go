package cmd

import (
	"unsafe"

	"github.com/ckpt-dev/ckpt/trace"
)

// prefault faults in, on a goroutine of its own, the pages of the run's
// events the engine is about to write. The engine reserves the run
// whole (a gigabyte and more at 10^7 events) and writes it front to back;
// each page it touches first costs a fault, which on a virtual machine
// is about a second of system time per gigabyte, on the engine's
// goroutine: the one verify's wall time waits on when it runs one
// algorithm at a time with a core to spare (streamAhead). Asking the
// kernel to populate the pages ahead (populate, MADV_POPULATE_WRITE on
// Linux) moves that work to the spare core; it changes no byte of the
// run. Pages are populated a window ahead of the engine, not all at
// once, so a run shorter than its reservation costs no more memory.
type prefault struct {
	req  chan prefaultReq
	done chan struct{}
}

// prefaultReq asks for the pages of evs's array up to event upto plus
// the window; holding evs keeps the array alive while it is populated.
type prefaultReq struct {
	evs  []trace.RunEvent
	upto int
}

// prefaultWindow is how many events ahead of the engine the pages are
// populated: several hand-overs (streamBatch), tens of megabytes.
const prefaultWindow = 1 << 18

// startPrefault starts the goroutine, or returns nil where populate is
// not available.
func startPrefault() *prefault {
	if !canPopulate {
		return nil
	}
	pf := &prefault{req: make(chan prefaultReq, 1), done: make(chan struct{})}
	go pf.run()
	return pf
}

// ahead asks for the pages ahead of event upto of evs; it never blocks
// the engine: a request the goroutine has not taken yet is replaced.
func (pf *prefault) ahead(evs []trace.RunEvent, upto int) {
	if pf == nil {
		return
	}
	r := prefaultReq{evs: evs, upto: upto}
	for {
		select {
		case pf.req <- r:
			return
		default:
		}
		select {
		case <-pf.req: // stale: drop it
		default:
		}
	}
}

// stop ends the goroutine and waits for it.
func (pf *prefault) stop() {
	if pf == nil {
		return
	}
	close(pf.req)
	<-pf.done
}

// run populates what is asked, each array from where it stopped.
func (pf *prefault) run() {
	defer close(pf.done)
	var base unsafe.Pointer
	var from uintptr // bytes of base's array populated
	for r := range pf.req {
		if cap(r.evs) == 0 {
			continue
		}
		if b := unsafe.Pointer(unsafe.SliceData(r.evs)); b != base {
			base, from = b, 0 // a new array: the run outgrew its reservation
		}
		size := unsafe.Sizeof(r.evs[:1][0])
		to := uintptr(min(r.upto+prefaultWindow, cap(r.evs))) * size
		if to <= from {
			continue
		}
		mem := unsafe.Slice((*byte)(base), uintptr(cap(r.evs))*size)
		if !populate(mem[from:to]) {
			// Refused (an older kernel): the engine faults its pages as
			// before.
			for range pf.req {
			}
			return
		}
		from = to
	}
}
