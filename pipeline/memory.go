package pipeline

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// The memory cap (--max-memory; docs/performance.md "Memory cap").
// Hostile or merely huge input must never get the kernel to kill ckpt:
// before it decodes a file, replays a trace or checks a run, the
// pipeline estimates the peak memory from the sizes it knows and refuses
// (*TooBig, exit status 2), naming what is too big, when the estimate
// exceeds the cap. The estimates are of the live heap, calibrated on
// measured peaks and erring high; each algorithm's entry in the registry
// estimates its own state (algorithms.Algorithm.Memory).

// Cap is a memory cap in bytes, 0 for none. It is a flag value (Set,
// String, Type) that reads sizes such as 2GiB.
type Cap struct {
	Bytes int64
	set   bool
	from  string // where the default came from, for messages
}

// String writes the cap as --max-memory takes it (flag.Value).
func (c *Cap) String() string {
	if c.Bytes == 0 {
		return "0"
	}
	return FormatBytes(c.Bytes)
}

// Set reads a size: a number with an optional unit, B, K/KB/KiB,
// M/MB/MiB, G/GB/GiB, T/TB/TiB (powers of 1024 all: memory is counted
// in pages); 0 means no cap.
func (c *Cap) Set(s string) error {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	unit := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(t[i:])), "B"), "I")
	mult := map[string]float64{"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[unit]
	v, err := strconv.ParseFloat(t[:i], 64)
	if mult == 0 || err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || v*mult > math.MaxInt64/2 {
		return fmt.Errorf("want a size such as 2GiB, 512MiB or 0 (no cap)")
	}
	c.Bytes, c.set = int64(v*mult), true
	return nil
}

// Type names the flag's values in help.
func (c *Cap) Type() string { return "size" }

// Resolve sets the default when no cap was given, three quarters of the
// machine's memory or of the cgroup's limit, whichever is lower, and
// makes the cap the collector's soft limit, so that work whose live heap
// fits is collected harder rather than let grow past it.
func (c *Cap) Resolve() {
	if !c.set {
		if total, from := machineMemory(); total > 0 {
			c.Bytes, c.from = total/4*3, "default: 75% of "+from
		}
	}
	if c.Bytes > 0 {
		debug.SetMemoryLimit(c.Bytes)
	}
}

// TooBig refuses work whose memory estimate exceeds the cap.
type TooBig struct{ File, Msg string }

// Error names the file and what is too big in it.
func (e *TooBig) Error() string { return e.File + ": " + e.Msg }

// estimate is a predicted peak: doing what, and what makes it that big.
type estimate struct {
	bytes      int64
	doing, why string
	// partial: the count stopped at the cap, so bytes is a floor
	// (import's files and stdin: "needs more than").
	partial bool
}

// check returns a *TooBig when e, for file, exceeds the cap (none on a
// nil Cap).
func (c *Cap) check(file string, e estimate) error {
	if c == nil || c.Bytes == 0 || e.bytes <= c.Bytes {
		return nil
	}
	name := FormatBytes(c.Bytes) + " (--max-memory)"
	if c.from != "" {
		name = fmt.Sprintf("%s (--max-memory; %s)", FormatBytes(c.Bytes), c.from)
	}
	about := "about"
	if e.partial {
		about = "more than"
	}
	return &TooBig{File: file, Msg: fmt.Sprintf("%s needs %s %s of memory (%s), over the memory cap of %s",
		e.doing, about, FormatBytes(e.bytes), e.why, name)}
}

// Bytes per item, calibrated on measured peaks (docs/performance.md
// "Memory cap"): a decoded byte of JSON, a trace event and message, a
// process in a replay (the trace's, the engine's and the algorithm's
// state of it), a run event (the engine's and the checker's), a copy of
// a send in the engine, a checkpoint in the checker, a failure and a
// failure per process (its recovery line) in the checker and the report.
//
// perProc, perCheckProc and perRollback were measured on traces of one
// message, a checkpoint and 0, 1 and 2 failures in 10^6 processes (the
// peak resident set with GOGC=20, near the live heap; estimated →
// measured, MiB): replaying them through pk, 733 → 682, 1,030 → 932
// and 1,328 → 1,089; through ms, 702 → 481, 1,885 → 1,586 and 2,335 →
// 1,827; verify of 250,000 and 500,000 processes and one failure, ms
// 866 → 667 and 1,717 → 1,346, pk 660 → 602 and 1,305 → 1,189.
const (
	perJSONByte   = 1.5
	perTraceEvent = 56
	perMsg        = 64
	perProc       = 512
	perRunEvent   = 104
	perModelEvent = 40
	perSendCopy   = 56
	perCkpt       = 80
	perFail       = 1 << 10
	perFailProc   = 640
	perCheckProc  = 768
	perVTEntry    = 8
	perIdentity   = 8
	perSlice      = 24
	baseBytes     = 16 << 20
	// perRollback is MS's Rollback to every other process when a
	// process restarts (ms.restart): the effects, the control messages
	// and the queue holding them all at once, grown by doubling. The
	// engine reuses them, so most of it is counted once; the messages
	// of failures at the same time are in flight together, perRollbackEach
	// a process each beyond their run events (RunEvents): 8 failures at
	// once in 250,000 processes, 1,271 MiB estimated, 1,167 measured.
	perRollback     = 768
	perRollbackEach = 160
)

// decodeEstimate estimates decoding the file at path from its size (for
// gzip, the uncompressed size its trailer records). A compact run
// (ckpt/run@2) writes a vector time as its differences, one or two
// entries, but decodes each dense, and a receipt list as an earlier one
// extended, but decodes it as a copy: its vectors and copied identities
// are counted by a first pass (codec.ScanCompactRun), under a cap only. A file that cannot be
// read is left to the decoder to report.
func (p *Pipeline) decodeEstimate(path string) (estimate, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return estimate{}, false
	}
	size := gzipSize(path, st.Size())
	e := estimate{bytes: int64(float64(size) * perJSONByte), doing: "decoding it",
		why: "a " + FormatBytes(size) + " document"}
	if p.Mem == nil || p.Mem.Bytes == 0 {
		return e, true
	}
	if r, c, err := p.open(path); err == nil {
		h := codec.ScanCompactRun(path, r)
		c.Close()
		if n := int64(0); h != nil {
			n = int64(len(h.Run.Processes))
			e.bytes += h.Vectors*(n*perVTEntry+perSlice) + h.Copied*perIdentity
			e.why = fmt.Sprintf("%s of %d vector times, each of %d entries once decoded", e.why, h.Vectors, n)
			if h.Copied > 0 {
				e.why += fmt.Sprintf(", and of %d receipt identities its lists by reference copy", h.Copied)
			}
		}
	}
	return e, true
}

// gzipSize is the uncompressed size a gzip file's trailer records (mod
// 2^32, so at least the compressed size), or size if path is not gzip.
func gzipSize(path string, size int64) int64 {
	f, err := os.Open(path)
	if err != nil {
		return size
	}
	defer f.Close()
	var head [2]byte
	var tail [4]byte
	if _, err := f.ReadAt(head[:], 0); err != nil || head != [2]byte{0x1f, 0x8b} || size < 18 {
		return size
	}
	if _, err := f.ReadAt(tail[:], size-4); err != nil {
		return size
	}
	u := int64(binary.LittleEndian.Uint32(tail[:]))
	for u < size {
		u += 1 << 32
	}
	return u
}

// streamedSizes are the sizes whose vectors a streamed verify holds at
// once (the run handed to the checker as it is made, vectors dropped
// once taken: replay/release.go), where s holds every one: the sends
// and checkpoint ticks up to a bound on the point past which no failure
// is recovered from — the latest restart, plus a token's round of the
// ring, one control delay a hop — whose vectors a recovery may still
// read (the checker keeps them: consistency/spec_pk_vectors.go); beyond
// it, the copies in flight at once and two checkpoints per busy process
// (the latest, and the one before it until the latest is stable).
// Measured on the 4,096-process trace of docs/performance.md.
func streamedSizes(tr *trace.Trace, s replay.Sizes, params trace.Params) replay.Sizes {
	p := tr.Params.Override(params).WithDefaults()
	quiet := trace.Time(-1)
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == trace.Fail {
			quiet = max(quiet, e.T+p.DownOf(e)+trace.Time(s.Procs+1)*p.ControlDelay)
		}
	}
	var sends, ticks, inFlight, most int64
	// moved[p]: p did something since its last vector, so its next tick
	// makes a new one; a tick after none shares the last (pk's clock),
	// as the checker's copy does (a trace of many ticks between few ops
	// was estimated at ten times its peak).
	moved := slices.Repeat([]bool{true}, len(tr.Processes))
	for i := range tr.Events {
		e := &tr.Events[i]
		switch {
		case e.Kind == trace.Send:
			inFlight++
			most = max(most, inFlight)
			if e.T <= quiet {
				sends++
			}
		case e.Kind == trace.Recv:
			inFlight--
		case e.Kind == trace.Checkpoint && e.T <= quiet && moved[e.P]:
			ticks++
		}
		// A send makes a vector as a tick does; a flush changes none.
		moved[e.P] = e.Kind != trace.Checkpoint && e.Kind != trace.Flush && e.Kind != trace.Send
	}
	// Never more than the whole run's: a failure late in the trace
	// leaves every vector to be read again.
	s.Sends, s.Checkpoints = min(s.Sends, sends+most), min(s.Checkpoints, ticks+2*s.Busy)
	return s
}

// replayEstimate estimates replaying a trace of sizes s through the
// algorithms names at once (their runs add up), and checking the runs
// when check is set.
func replayEstimate(s replay.Sizes, names []string, check bool) estimate {
	e := estimate{bytes: baseBytes + s.Events*perTraceEvent + s.Msgs*perMsg,
		doing: "replaying it through " + strings.Join(names, " and ")}
	runEvents := replay.RunEvents(s)
	var most int64
	for _, name := range names {
		b, why := runBytes(name, s, runEvents, check)
		b += s.Procs * perProc
		if strings.SplitN(name, "-", 2)[0] == "ms" && s.Fails > 0 {
			b += s.Procs * (perRollback + s.Fails*perRollbackEach)
			why = fmt.Sprintf("%s, and a Rollback to each of %d processes", why, s.Procs)
		}
		if e.bytes += b; b > most {
			most, e.why = b, why
		}
	}
	if check {
		e.doing += " and checking the run" + map[bool]string{true: "s"}[len(names) > 1]
	}
	return e
}

// FitsAtOnce refuses (*TooBig), as Fits does, n replays of tr at once,
// each with failures more fail events than tr has, and the baseline
// they read: what explore holds (its workers' schedules and the
// prefixes they share).
func (p *Pipeline) FitsAtOnce(tr *trace.Trace, names []string, check bool, failures, n int) error {
	s := replay.SizesOf(tr)
	points := s.Events - s.Fails + s.Procs // explore's failure points, at most
	s.Fails += int64(failures)
	e := replayEstimate(s, names, check)
	e.bytes = baseBytes + (e.bytes-baseBytes)*int64(n)
	e.doing = fmt.Sprintf("exploring it (%d replays at once, each %s)", n, e.doing)
	if failures > 0 {
		// The uncoordinated baseline of a failure at every point
		// (explore's base.baselines, measure.Uncoordinated): a line of
		// every process for each.
		b := points * s.Procs * perBaselineEntry
		if e.bytes += b; b > e.bytes/2 {
			e.why = fmt.Sprintf("the uncoordinated baseline: a line of %d processes for each of %d failure points", s.Procs, points)
		}
	}
	return p.Mem.check(tr.Name, e)
}

// perBaselineEntry is what explore's baseline holds per failure point
// and process (measure.Uncoordinated's line entry and the processes'
// ops and ticks at the failure). Measured exploring traces of one
// message in 2,000 and 4,000 processes (2,003 and 4,003 points;
// estimated → measured resident peak, GOGC=20): 305 → 230 MiB and
// 1,143 → 924 MiB; of 3,000 events in 300 processes (3,949 points),
// 101 → 88 MiB.
const perBaselineEntry = 72

// checkEstimate estimates checking a decoded run beside it. Its busy
// processes are those with events that can move their vector time
// (Kind.MovesVector): an end record or a token passing through leaves an
// idle process's vector zero.
func checkEstimate(run *trace.Run) estimate {
	s := replay.Sizes{Procs: int64(len(run.Processes))}
	busy := make([]bool, len(run.Processes))
	for i := range run.Events {
		e := &run.Events[i]
		s.Count(e.Kind)
		if p := e.P; e.Kind.MovesVector() && p >= 0 && int(p) < len(busy) && !busy[p] {
			busy[p] = true
			s.Busy++
		}
	}
	b, why := runBytes(run.Algorithm, s, int64(len(run.Events)), true)
	return estimate{bytes: baseBytes + b, doing: "checking it", why: why}
}

// streamCheckEstimate estimates checking the run h heads as it is read
// (CheckFile) against src (nil: none): the run's events stay, each
// without its vectors once taken; the checker's model; the source trace;
// and PK's vectors. PK's spec keeps up to two per process (a clock's
// base and its share of the copies' vectors not yet merged,
// consistency's pkClock.take) and its own copy of
// each vector a recovery may read (consistency/spec_pk_vectors.go) —
// every one, unless the source trace shows no failure, and then those of
// the copies in flight; the decoder of a compact run keeps as many again
// (codec's vtChain: a process's latest vector, each copy's in flight).
// Measured on the 4,096-process run of docs/performance.md: 745 MB
// estimated, 785 MB the most live heap.
func streamCheckEstimate(h *codec.RunHead, src *trace.Trace) estimate {
	np := int64(len(h.Run.Processes))
	s := h.Sizes
	s.Procs, s.Busy = np, 2*np // two vectors per process: above
	b, why := heldBytes(s, h.Events, true)
	if src != nil {
		b += int64(len(src.Events))*perTraceEvent + int64(len(src.Msgs))*perMsg
	}
	kept := s
	if h.Run.Algorithm == "pk" && h.Fails == 0 && src != nil && !slices.ContainsFunc(src.Events, func(e trace.Event) bool { return e.Kind == trace.Fail }) {
		kept.Sends, kept.Checkpoints = h.InFlight, 0
	}
	if h.Compact && h.Run.Algorithm == "pk" {
		b += (np + h.InFlight) * np * perVTEntry
	}
	alg, algWhy := algBytes(h.Run.Algorithm, kept)
	if alg > b {
		why = algWhy
	}
	if copied := h.Copied * perIdentity; copied > max(alg, b) {
		why = fmt.Sprintf("%d receipt identities its lists by reference copy", h.Copied)
	}
	return estimate{bytes: baseBytes + b + alg + h.Copied*perIdentity, doing: "checking it", why: why}
}

// runBytes estimates one run of algorithm name, of runEvents events,
// and, when check is set, the checker's model of it; why names the term
// that dominates. The algorithm's own memory (its registry entry) is
// counted again for the checker, which rebuilds what it judges.
func runBytes(name string, s replay.Sizes, runEvents int64, check bool) (int64, string) {
	b, why := heldBytes(s, runEvents, check)
	alg, algWhy := algBytes(name, s)
	if check {
		alg *= 2
	}
	if alg > b {
		why = algWhy
	}
	return b + alg, why
}

// heldBytes estimates a run's events and copies but its algorithm's
// vectors, and with check the checker's model; why names the term that
// dominates.
func heldBytes(s replay.Sizes, runEvents int64, check bool) (int64, string) {
	b := runEvents*perRunEvent + s.Sends*perSendCopy
	why := fmt.Sprintf("%d run events", runEvents)
	if check {
		b += runEvents*perModelEvent + s.Checkpoints*perCkpt + s.Procs*perCheckProc
		fails := s.Fails * (s.Procs*perFailProc + perFail)
		if fails > b {
			why = fmt.Sprintf("%d failures × %d processes of recovery lines", s.Fails, s.Procs)
		}
		b += fails
	}
	return b, why
}

// algBytes is the memory of algorithm name's state and vectors (its
// registry entry), 0 if it has no estimate.
func algBytes(name string, s replay.Sizes) (int64, string) {
	if a, ok := algorithms.Lookup(strings.SplitN(name, "-", 2)[0]); ok && a.Memory != nil {
		return a.Memory(s)
	}
	return 0, ""
}

// machineMemory returns the memory ckpt may use: the machine's
// (MemTotal of /proc/meminfo), or the cgroup's limit when lower (cgroup
// v2 memory.max, v1 memory.limit_in_bytes), and which it is.
func machineMemory() (int64, string) {
	total, from := int64(0), ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if kb := meminfoTotal(b); kb > 0 {
			total, from = kb*1024, "the machine's "+FormatBytes(kb*1024)
		}
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
		if err == nil && n > 0 && (total == 0 || n < total) {
			total, from = n, "the cgroup's limit of "+FormatBytes(n)
		}
	}
	return total, from
}

// meminfoTotal returns MemTotal in kB from /proc/meminfo's text, or 0.
func meminfoTotal(b []byte) int64 {
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// FormatBytes writes n in the largest binary unit that keeps it ≥ 1.
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}

// FitsEach refuses (*TooBig) what compare --sweep does: n traces of
// sizes s, as many at once as the Pipeline has Cores (as Each runs
// them), each replayed through the algorithms names one after the
// other, each run garbage once measured, and none checked. file and
// traces name them in the message ("compare --sweep", "traces of 200
// processes …").
func (p *Pipeline) FitsEach(file, traces string, s replay.Sizes, names []string, n int) error {
	workers := p.Cores
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return p.Mem.check(file, eachEstimate(traces, s, names, min(n, workers)))
}

// eachEstimate estimates FitsEach's n traces at once. The costliest
// algorithm decides; its vectors are counted a tenth again, PK's run
// 400 bytes more a send (its message log), and the trace once more
// (explore.Replay labels a copy's ticks). Calibrated on measured peaks
// (MiB, estimated → measured): pk at 8 processes and ICT/MTT 100, 41.9
// → 33.5, and two such traces at once 67.7 → 54.1; pk at 100 and 200
// processes and ICT/MTT 20 and 50, 130 → 119, 296 → 268, 350 → 333 and
// 834 → 786, and two at 100 and 50 at once 577 → 541; hmnr and fdas at
// 100 and 50, 175 → 160 and 138; ms and uncoordinated there, 111 → 91
// and 97.
func eachEstimate(traces string, s replay.Sizes, names []string, n int) estimate {
	var most estimate
	for _, name := range names {
		e := replayEstimate(s, []string{name}, false)
		alg, _ := algBytes(name, s)
		if e.bytes += alg/10 + s.Events*perTraceEvent; name == "pk" {
			e.bytes += s.Sends * perPKSend
		}
		if e.bytes > most.bytes {
			most = e
		}
	}
	most.bytes = baseBytes + (most.bytes-baseBytes)*int64(n)
	most.doing = fmt.Sprintf("replaying %s, %d at once,%s", traces, n, strings.TrimPrefix(most.doing, "replaying it"))
	return most
}

// perPKSend is what a PK run holds per send beyond its vectors
// (eachEstimate).
const perPKSend = 400

// What import holds (it reads a log whole) per byte, line and JSON
// object of a file, by kind: a text log (ShiViz, GoVector), JSON (spans,
// tracing records) and recordings (package record). Calibrated on
// measured peaks: text logs of 1.3, 10.5, 21.7 and 44.1 MiB (3,508 to
// 426,903 lines: estimated 26, 114, 217 and 423 MiB, measured 22, 111,
// 206 and 382 MiB) and one of 3,000,000 short lines in 24.7 MiB (876
// MiB, measured 779 MiB); Zipkin and OTLP files of 33 MiB with 200,000
// spans of about 170 bytes and 400,000 of 85 (271, 242 and 326 MiB,
// measured 214, 222 and 317 MiB); two recordings of 200,000 events each
// in 34.5 MiB (372 MiB, measured 310 MiB).
var importKinds = [...]struct {
	why                string // of size, lines and objects
	byte, line, object int64
}{
	{"%[1]s of text in %[2]d lines", 7, 240, 0},
	{"%[1]s of JSON with %[3]d objects", 6, 0, 150},
	{"%[1]s of recordings in %[2]d lines", 6, 240, 150},
}

// FitsImport refuses (*TooBig) importing the files at paths together
// (importEstimate), under a cap only: the estimate reads each file once,
// and no further than four times the cap (and the base), so that a file
// somewhat over it is told its whole estimate and a gzip bomb of blank
// lines is refused at once rather than after a minute of decompressing.
func (p *Pipeline) FitsImport(paths []string) error {
	if p.Mem == nil || p.Mem.Bytes == 0 {
		return nil
	}
	if e := importEstimate(paths, int64(min(baseBytes+4*float64(p.Mem.Bytes), math.MaxInt64/2))); e.why != "" {
		return p.Mem.check(strings.Join(paths, ", "), e)
	}
	return nil
}

// importEstimate estimates importing the files at paths together from
// each file's bytes, lines and objects (importKinds), counting each no
// further than stop bytes of estimate. Only regular files are counted (a
// pipe read here would be read no more); why is empty when none was.
func importEstimate(paths []string, stop int64) estimate {
	var sums [len(importKinds)]importCount
	cut := false
	for _, path := range paths {
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() || path == "-" {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		var c importCount
		if r, err := codec.OpenInput(f); err == nil {
			c = countImport(r, stop) // what import reads: decompressed
		}
		f.Close()
		sum := &sums[c.kind]
		sum.size, sum.lines, sum.objects, cut = sum.size+c.size, sum.lines+c.lines, sum.objects+c.objects, cut || c.cut
	}
	e := estimate{bytes: baseBytes, doing: "importing it"}
	var why []string
	for k, c := range sums {
		if c.size > 0 {
			e.bytes += c.bytes(k)
			why = append(why, fmt.Sprintf(importKinds[k].why, FormatBytes(c.size), c.lines, c.objects))
		}
	}
	if e.why, e.partial = strings.Join(why, " and "), cut; cut {
		e.why = "the first " + e.why + ", counted no further"
	}
	return e
}

// importCount is what importEstimate counts of a file: its bytes, lines
// and opening braces, and its kind (an index of importKinds), told by
// its first text past white space; cut says the count stopped early.
type importCount struct {
	size, lines, objects int64
	kind                 int
	started, cut         bool
}

// add counts b, the next bytes read.
func (c *importCount) add(b []byte) {
	if t := bytes.TrimLeft(b, " \t\r\n\ufeff"); !c.started && len(t) > 0 {
		c.started = true
		switch {
		case bytes.Contains(t, []byte(`"ckpt/recording@`)):
			c.kind = 2
		case t[0] == '{' || t[0] == '[':
			c.kind = 1
		}
	}
	c.size += int64(len(b))
	c.lines += int64(bytes.Count(b, []byte{'\n'}))
	c.objects += int64(bytes.Count(b, []byte{'{'}))
}

// bytes is what importing the count takes, read as kind k.
func (c *importCount) bytes(k int) int64 {
	per := importKinds[k]
	return c.size*per.byte + c.lines*per.line + c.objects*per.object
}

// countImport counts r, stopping once its estimate passes stop bytes.
func countImport(r io.Reader, stop int64) importCount {
	var c importCount
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		b, err := br.ReadSlice('\n')
		if c.add(b); err != nil && err != bufio.ErrBufferFull {
			return c
		}
		if baseBytes+c.bytes(c.kind) > stop {
			_, err := br.Peek(1)
			c.cut = err == nil // more to read
			return c
		}
	}
}

// MeterImport returns r, which import reads as name from a pipe (stdin)
// that FitsImport cannot count ahead, counted as it is read: once the
// estimate of what was read passes the cap, reads fail, and over returns
// the *TooBig to report instead of the reader's error.
func (p *Pipeline) MeterImport(name string, r io.Reader) (metered io.Reader, over func() error) {
	m := &importMeter{r: r, cap: p.Mem, name: name}
	return m, func() error { return m.err }
}

// importMeter is MeterImport's reader.
type importMeter struct {
	r    io.Reader
	c    importCount
	cap  *Cap
	name string
	err  error
}

func (m *importMeter) Read(b []byte) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	n, err := m.r.Read(b)
	m.c.add(b[:n])
	if e := baseBytes + m.c.bytes(m.c.kind); m.cap != nil && m.cap.Bytes > 0 && e > m.cap.Bytes {
		why := fmt.Sprintf(importKinds[m.c.kind].why, FormatBytes(m.c.size), m.c.lines, m.c.objects)
		m.err = m.cap.check(m.name, estimate{bytes: e, doing: "importing it", why: "the first " + why + ", counted no further", partial: true})
		return 0, m.err
	}
	return n, err
}
