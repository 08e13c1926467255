package cmd

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/ckpt-dev/ckpt/trace"
)

// The memory cap (--max-memory, docs/performance.md "Memory cap"). Hostile
// or merely huge input must never get the kernel to kill ckpt: before it
// decodes a file, and before it replays a trace or checks a run, ckpt
// estimates the peak memory that will take from the sizes it knows (file
// size; events, processes, messages, checkpoints, failures) and stops with
// exit status 2, naming what is too big, when the estimate exceeds the cap.
// The estimates are of the live heap, calibrated on measured peaks
// (docs/performance.md) and erring on the high side; the cap is also
// handed to the garbage collector as its soft limit, so that work whose
// live heap fits is collected harder rather than let grow past the cap.

// defaultCapShare is the share of the machine's memory (or of the cgroup's
// limit, when lower) that the default cap allows.
const defaultCapShare = 0.75

// parallelShare is the share of the cap that running several algorithms
// at once may take (their peaks, garbage included, added up): parallel
// runs halve the wall time at most, and beyond this much memory the
// memory is the scarcer resource.
const parallelShare = 1.0 / 10

// memCap is the value of --max-memory.
type memCap struct {
	bytes int64 // 0: no cap
	set   bool  // given on the command line
	// from says where the default came from, for messages.
	from string
}

func (c *memCap) String() string {
	if c.bytes == 0 {
		return "0"
	}
	return formatBytes(c.bytes)
}

func (c *memCap) Set(s string) error {
	n, err := parseBytes(s)
	if err != nil {
		return err
	}
	c.bytes, c.set = n, true
	return nil
}

func (c *memCap) Type() string { return "size" }

// resolve fills in the default cap when none was given and hands the cap
// to the garbage collector as its soft limit.
func (c *memCap) resolve() {
	if !c.set {
		if total, from := machineMemory(); total > 0 {
			c.bytes = int64(float64(total) * defaultCapShare)
			c.from = fmt.Sprintf("default: %d%% of %s", int(defaultCapShare*100), from)
		}
	}
	if c.bytes > 0 {
		debug.SetMemoryLimit(c.bytes)
	}
}

// describe names the cap for messages.
func (c *memCap) describe() string {
	if c.from != "" {
		return fmt.Sprintf("%s (--max-memory; %s)", formatBytes(c.bytes), c.from)
	}
	return formatBytes(c.bytes) + " (--max-memory)"
}

// capped reports whether a cap is in force.
func (c *memCap) capped() bool { return c != nil && c.bytes > 0 }

// check returns a *tooBig error when estimate e for file exceeds the cap.
func (c *memCap) check(file string, e estimate) error {
	if !c.capped() || e.bytes <= c.bytes {
		return nil
	}
	return &tooBig{file: file, msg: fmt.Sprintf("%s needs about %s of memory (%s), over the memory cap of %s",
		e.doing, formatBytes(e.bytes), e.why, c.describe())}
}

// tooBig is the refusal of work whose memory estimate exceeds the cap
// (exit status 2, as for invalid input).
type tooBig struct{ file, msg string }

func (e *tooBig) Error() string { return e.file + ": " + e.msg }

// machineMemory returns the memory ckpt may use: the machine's
// (MemTotal of /proc/meminfo), or the cgroup's limit when lower (cgroup
// v2 memory.max, v1 memory.limit_in_bytes), and which it is.
func machineMemory() (int64, string) {
	total, from := int64(0), ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if kb := meminfoTotal(b); kb > 0 {
			total, from = kb*1024, "the machine's "+formatBytes(kb*1024)
		}
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && (total == 0 || n < total) {
			total, from = n, "the cgroup's limit of "+formatBytes(n)
		}
	}
	return total, from
}

// meminfoTotal returns MemTotal in kB from /proc/meminfo's text, or 0.
func meminfoTotal(b []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// parseBytes reads a size: a number with an optional unit, B, K/KB/KiB,
// M/MB/MiB, G/GB/GiB, T/TB/TiB (powers of 1024 all: memory is counted in
// pages); 0 means no cap.
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := t[:i], strings.ToUpper(strings.TrimSpace(t[i:]))
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")
	mult := map[string]float64{"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if mult == 0 || err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("want a size such as 2GiB, 512MiB or 0 (no cap)")
	}
	return int64(v * mult), nil
}

// formatBytes writes n in the largest binary unit that keeps it ≥ 1.
func formatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v := float64(n)
	u := 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}

// estimate is a predicted peak memory: doing what, and why it is that big.
type estimate struct {
	bytes int64
	doing string
	why   string
}

// decodedPerByte is the memory a decoded document takes per byte of JSON
// (measured 1.4 for traces, less for runs whose vectors are long).
const decodedPerByte = 1.5

// decodeEstimate estimates decoding the file at path from its size (for
// gzip, the uncompressed size its trailer records). A file that cannot be
// read is left to the decoder to report.
func decodeEstimate(path string) (estimate, bool) {
	st, ok := statRegular(path)
	if !ok {
		return estimate{}, false
	}
	size := st.Size()
	if u, ok := gzipSize(path, size); ok {
		size = u
	}
	return estimate{bytes: int64(float64(size) * decodedPerByte), doing: "decoding it",
		why: fmt.Sprintf("a %s document", formatBytes(size))}, true
}

// gzipSize returns the uncompressed size a gzip file's trailer records
// (mod 2^32, so at least the compressed size), if path is gzip.
func gzipSize(path string, size int64) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	head := make([]byte, 2)
	if _, err := io.ReadFull(f, head); err != nil || head[0] != 0x1f || head[1] != 0x8b || size < 18 {
		return 0, false
	}
	tail := make([]byte, 4)
	if _, err := f.ReadAt(tail, size-4); err != nil {
		return 0, false
	}
	u := int64(binary.LittleEndian.Uint32(tail))
	for u < size {
		u += 1 << 32
	}
	return u, true
}

// traceSizes are the counts of a trace the estimates read.
type traceSizes struct {
	events, procs, msgs                 int64
	sends, recvs, ticks, flushes, fails int64
	busy                                int64 // processes with events of their own
}

// judging is what a command does with a replayed run, which decides what
// the replay keeps.
type judging uint8

const (
	replayed judging = iota // the run is written (replay): kept whole
	checked                 // the run is checked (verify, diagram)
)

// sizesOf counts tr's sizes.
func sizesOf(tr *trace.Trace) traceSizes {
	s := traceSizes{events: int64(len(tr.Events)), procs: int64(len(tr.Processes)), msgs: int64(len(tr.Msgs))}
	for i := range tr.Events {
		switch e := &tr.Events[i]; e.Kind {
		case trace.Send:
			s.sends++
		case trace.Recv:
			s.recvs++
		case trace.Checkpoint:
			s.ticks++
		case trace.Flush:
			s.flushes++
		case trace.Fail:
			s.fails++
		}
	}
	_, n := tr.Busy()
	s.busy = int64(n)
	return s
}

// Bytes per item of the replay estimate, calibrated on measured peaks
// (docs/performance.md "Memory cap"): a run event and the checker's
// tables per event, a copy, a checkpoint in the checker, a failure per
// process in the report and the checker, a PK vector entry.
const (
	perRunEvent   = 96 // a decoded or replayed run event
	perModelEvent = 40 // the checker's tables per run event
	perSendCopy   = 56 // the engine's copy of a send
	perTraceEvent = 56
	perMsg        = 64
	perCkpt       = 80
	perFailProc   = 480
	perFail       = 1 << 10
	perVTEntry    = 8
	// gcFactor is the peak over the live heap at gcPercent (measured
	// 1.35-1.45).
	gcFactor         = 1.4
	baseBytes        = 16 << 20
	engineEventBytes = 8
)

// traceBytes estimates a decoded trace.
func (s traceSizes) traceBytes() int64 { return s.events*perTraceEvent + s.msgs*perMsg }

// runEvents bounds the events of a run: the trace's, less flushes, plus
// a forced checkpoint or log entry per receive, the control messages and
// restores of every failure, and an end per process.
func (s traceSizes) runEvents() int64 {
	return s.events - s.flushes + s.recvs + s.fails*(3*s.procs+2) + 2*s.procs + 16
}

// replayBytes estimates the live heap of replaying the trace through
// algorithm name, and of what j does with the run, beside the trace; why
// names the term that dominates.
func (s traceSizes) replayBytes(name string, j judging) (int64, string) {
	runEv := s.runEvents()
	run := runEv*perRunEvent + s.sends*perSendCopy + s.events*engineEventBytes
	why := fmt.Sprintf("%d run events", runEv)
	var model, fails int64
	if j != replayed {
		model = runEv*perModelEvent + s.ticks*perCkpt
		fails = s.fails * (s.procs*perFailProc + perFail)
		if fails > run+model {
			why = fmt.Sprintf("%d failures × %d processes of recovery lines", s.fails, s.procs)
		}
	}
	var vec int64
	sends, ticks := s.sends, s.ticks
	switch name {
	case "pk":
		copies := int64(1) // the algorithm's current vectors
		if j != replayed {
			copies++ // and the checker's
		}
		// Only processes with events keep a current vector (pk.New).
		vec = s.procs * perVTEntry * (sends + ticks + copies*s.busy)
	case "fdas", "hmnr":
		vec = s.procs * 4 * (sends + ticks)
	}
	if vec > run+model+fails {
		why = fmt.Sprintf("%d processes: a %d-entry vector for each of %d sends and %d checkpoints", s.procs, s.procs, sends, ticks)
		if sends+ticks < s.busy {
			why = fmt.Sprintf("%d processes: a %d-entry vector for each of %d busy processes", s.procs, s.procs, s.busy)
		}
	}
	return run + model + fails + vec, why
}

// replayEstimate estimates the live heap of replaying tr through the
// algorithms names at once (in parallel: they add up), and doing j with
// each run.
func replayEstimate(s traceSizes, names []string, j judging) estimate {
	total := baseBytes + s.traceBytes()
	why := ""
	var most int64
	for _, n := range names {
		b, w := s.replayBytes(n, j)
		total += b
		if b > most {
			most, why = b, w
		}
	}
	doing := "replaying it through " + strings.Join(names, " and ")
	if j != replayed {
		doing += " and checking the run"
		if len(names) > 1 {
			doing += "s"
		}
	}
	return estimate{bytes: total, doing: doing, why: why}
}

// checkDecode refuses a file whose decoding would exceed the cap.
func (ios *IO) checkDecode(path string) error {
	if e, ok := decodeEstimate(path); ok {
		return ios.mem.check(path, e)
	}
	return nil
}

// fitsParallel reports whether replaying and checking tr through names at
// once is estimated to take at most parallelShare of the cap, garbage
// included.
func (ios *IO) fitsParallel(sizes func() traceSizes, names []string) bool {
	if !ios.mem.capped() {
		return true
	}
	e := replayEstimate(sizes(), names, checked)
	return float64(e.bytes)*gcFactor <= float64(ios.mem.bytes)*parallelShare
}

// checkRunMemory refuses checking run when it would exceed the cap; with
// no cap it does not estimate (a pass over the run's events).
func (ios *IO) checkRunMemory(path string, run *trace.Run) error {
	if !ios.mem.capped() {
		return nil
	}
	return ios.mem.check(path, checkEstimate(run))
}

// checkReplay refuses replaying tr through names (in parallel) when it
// would exceed the cap.
func (ios *IO) checkReplay(tr *trace.Trace, params trace.Params, names []string, j judging) error {
	return ios.checkReplaySized(tr.Name, lazySizes(tr), names, j)
}

// checkReplaySized is checkReplay with the trace's sizes counted by
// sizes, which verify shares between its estimates.
func (ios *IO) checkReplaySized(file string, sizes func() traceSizes, names []string, j judging) error {
	e := replayEstimate(sizes(), names, j)
	if !ios.mem.capped() {
		return nil
	}
	return ios.mem.check(file, e)
}

// lazySizes counts tr's sizes on first use, and once: verify asks for
// them per algorithm, for the parallel test and for the order (each a
// pass over the events).
func lazySizes(tr *trace.Trace) func() traceSizes {
	return sync.OnceValue(func() traceSizes { return sizesOf(tr) })
}

// checkEstimate estimates checking a decoded run beside it: the
// checker's tables per event and checkpoint, the recovery lines of every
// failure, and PK's rebuilt vectors (one per process and per checkpoint).
func checkEstimate(run *trace.Run) estimate {
	np := int64(len(run.Processes))
	var ckpts, fails int64
	for i := range run.Events {
		switch run.Events[i].Kind {
		case trace.Checkpoint:
			ckpts++
		case trace.Fail:
			fails++
		}
	}
	ev, busy := int64(len(run.Events)), int64(run.Busy())
	b := ev*perModelEvent + ckpts*perCkpt + fails*(np*perFailProc+perFail)
	decoded := ev * perRunEvent
	why := fmt.Sprintf("%d run events", ev)
	if run.Algorithm == "pk" {
		vec := np * perVTEntry * (busy + ckpts)
		if vec > b {
			why = fmt.Sprintf("%d processes: a rebuilt %d-entry vector for each of %d busy processes and %d checkpoints", np, np, busy, ckpts)
		}
		b += vec
	}
	return estimate{bytes: baseBytes + decoded + b, doing: "checking it", why: why}
}
