// Package shiviz converts between ckpt's formats and the vector-clock logs
// that ShiViz (DistributedClocks/shiviz) visualises and GoVector and the
// DistributedClocks tracing library write.
//
// A text log is parsed with a regular expression whose named groups host,
// clock and event describe one event (given, written on the log's first
// line, or the layout detected); a tracing log has one JSON record per
// line. Message edges are inferred from the clocks exactly as ShiViz
// infers them, events are ordered causally, and the result — the
// Execution, which the span importer builds too — becomes an execution
// trace (ckpt/trace@1) to which checkpoint ticks, flushes and failures can
// be added for recovery analysis. In the other direction a run
// (ckpt/run@1) is written as a ShiViz log.
package shiviz

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// ParseOptions say how to cut a log into events and executions.
type ParseOptions struct {
	// Regex matches one event; it must have the named groups host, clock
	// and event. Empty means: the regex on a file's first line if that
	// line is one (as Export writes it), else the layout detected.
	Regex string
	// Delimiter, if not empty, separates executions; its optional named
	// group "trace" labels the execution that follows it. It needs a
	// single file.
	Delimiter string
	// Lenient repairs clocks that forget what their host already knew,
	// recording each repair in Execution.Notes, instead of refusing them.
	Lenient bool
}

// Source is one file of a log.
type Source struct {
	// Name names the file in messages.
	Name string
	R    io.Reader
	// Tracing says the file holds DistributedClocks tracing records, one
	// JSON object a line, rather than text matched by a regex.
	Tracing bool
}

// Field is a named group of the regex other than host, clock and event.
type Field struct {
	Name, Value string
}

// Entry is one entry of a vector clock: host index and value.
type Entry struct {
	Host  int32
	Value int32
}

// Event is one event of an execution.
type Event struct {
	// Host indexes Execution.Hosts.
	Host int32
	// Own is the event's own clock value: it is the Own-th event of Host.
	Own int32
	// File indexes the log's files; Line is the 1-based line of that
	// file where the event starts, ClockLine the line of its clock, which
	// error messages name (0 for events built from spans).
	File            int32
	Line, ClockLine int
	// Clock holds the non-zero entries of the vector clock in the order
	// written (empty for events built from spans).
	Clock []Entry
	Text  string
	// Fields are the other named groups, in regex order.
	Fields []Field
	// Time is the event's time when Execution.Timed.
	Time trace.Time
	// Parents are the events (indexes into Execution.Events) whose
	// messages this event receives, in causal order.
	Parents []int32
	// Children are the events that receive a message sent by this event,
	// in causal order.
	Children []int32
}

// Execution is one execution of a log: the whole log, or the text between
// two delimiters.
type Execution struct {
	// Label is the delimiter's "trace" group ("" without a delimiter).
	Label string
	// Hosts are the host names in order of first appearance.
	Hosts []string
	// Events are in file order.
	Events []Event
	// Order lists the events (indexes into Events) in a causal order: a
	// topological order of happened-before that keeps file order where
	// causality leaves a choice, or time order when Timed.
	Order []int32
	// Timed says the events carry times consistent with causality.
	Timed bool
	// Messages is the number of message edges.
	Messages int
	// Skipped counts the non-blank lines no match covered.
	Skipped int
	// Notes say what the import decided or repaired, for its summary.
	Notes []string
	// built says Complete built the execution (from spans), not Parse.
	built bool
}

// Log is a parsed log.
type Log struct {
	// Files name the log's files.
	Files []string
	// Layout says how the events were cut from the text.
	Layout     string
	Executions []*Execution
}

// maxLogSize bounds what Parse reads: ShiViz itself holds a log in a
// browser tab, and the largest real log is about a megabyte.
const maxLogSize = 1 << 30

// maxLine bounds a line: longer means the input is not a log (a binary,
// /dev/zero), which is refused after a megabyte instead of read whole.
const maxLine = 1 << 20

// CompileRegex compiles a ShiViz expression for Go. ShiViz applies it in
// JavaScript's multi-line mode, so ^ and $ match at line breaks; Go
// accepts the (?<name>...) group syntax natively since Go 1.22.
func CompileRegex(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("(?m)" + expr)
	if err != nil {
		return nil, fmt.Errorf("bad regular expression %q: %v", expr, err)
	}
	return re, nil
}

// Parse reads a log from one file or several (one per process, as
// GoVector writes them, merged into one execution) and infers each
// execution's message edges and causal order. Any problem is a
// *trace.InputError naming the file and the line. A regex or delimiter
// that does not compile, or lacks the host, clock or event group, is an
// error too, and so is a text whose layout cannot be told.
func Parse(srcs []Source, opts ParseOptions) (*Log, error) {
	if len(srcs) > 1 && opts.Delimiter != "" {
		return nil, &trace.InputError{File: srcs[0].Name, Event: -1, Msg: "a delimiter splits one file into executions; give one file"}
	}
	p := &parser{lenient: opts.Lenient}
	log := &Log{}
	ex := p.begin("")
	for i, src := range srcs {
		p.files, p.file = append(p.files, src.Name), int32(i)
		log.Files = append(log.Files, src.Name)
		text, start, end, err := p.open(src, opts)
		if err != nil {
			return nil, err
		}
		if len(srcs) == 1 && !src.Tracing {
			log.Layout = p.layout()
			return p.executions(log, text, start, end, opts.Delimiter)
		}
		line := 1 + strings.Count(text[:start], "\n")
		if err := p.match(ex, text[start:end], line, src.Tracing); err != nil {
			return nil, err
		}
	}
	if err := p.finish(ex); err != nil {
		return nil, err
	}
	log.Executions, log.Layout = []*Execution{ex}, p.layout()
	return log, nil
}

// layout says how each file was read: once if alike.
func (p *parser) layout() string {
	if !slices.ContainsFunc(p.layouts, func(l string) bool { return l != p.layouts[0] }) {
		return p.layouts[0]
	}
	each := make([]string, len(p.layouts))
	for i, l := range p.layouts {
		each[i] = p.files[i] + ": " + l
	}
	return strings.Join(each, "; ")
}

// open reads a file and sets the regex its events are matched with,
// deciding on the file's first 64 KiB, before the rest is read, so that
// what is no log is refused at once. It returns the text and the part of
// it to match: ShiViz trims the whole log before parsing; the offsets
// keep line numbers those of the file.
func (p *parser) open(src Source, opts ParseOptions) (text string, start, end int, err error) {
	br := bufio.NewReaderSize(src.R, sampleSize)
	head, _ := br.Peek(sampleSize)
	layout := "DistributedClocks tracing records"
	if !src.Tracing {
		var expr string
		expr, start, layout, err = p.chooseRegex(string(head), len(head) < sampleSize, opts.Regex, opts.Delimiter)
		if err != nil {
			return "", 0, 0, err
		}
		if err := p.setRegex(expr); err != nil {
			return "", 0, 0, err
		}
		if h := string(head); len(head) == sampleSize && !p.re.MatchString(h[min(start, len(h)):strings.LastIndexByte(h, '\n')+1]) {
			return "", 0, 0, p.errf(0, "the regular expression %q matches no event in the first %d KiB: not a log it reads", expr, sampleSize>>10)
		}
	}
	p.layouts = append(p.layouts, layout)
	if text, err = p.readLog(br); err != nil {
		return "", 0, 0, err
	}
	end = len(strings.TrimRight(text, " \t\n\r\f\v"))
	for start < end && isSpace(text[start]) {
		start++
	}
	if start >= end {
		return "", 0, 0, p.errf(0, "empty log")
	}
	return text, start, end, nil
}

// readLog reads the whole log, bounded by maxLogSize and maxLine, with
// Windows line endings made Unix ones.
func (p *parser) readLog(r io.Reader) (string, error) {
	// A strings.Builder holds the log once; reading into a []byte and
	// converting would hold it twice.
	var sb strings.Builder
	buf := make([]byte, 64<<10)
	line, run := 1, 0
	for {
		n, err := r.Read(buf)
		for chunk := buf[:n]; ; {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				run += len(chunk)
				break
			}
			if run += i; run > maxLine {
				break
			}
			line, run, chunk = line+1, 0, chunk[i+1:]
		}
		if run > maxLine {
			return "", p.errf(line, "line longer than %d bytes: not a log", maxLine)
		}
		sb.Write(buf[:n])
		if sb.Len() > maxLogSize {
			return "", p.errf(0, "log larger than 1 GiB")
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", p.errf(0, "%v", err)
		}
	}
	text := sb.String()
	// Windows line endings would leave \r in every captured group and
	// defeat $ in multi-line mode.
	if strings.Contains(text, "\r\n") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	return text, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

type parser struct {
	// files name the files read so far, layouts how each was read; file
	// indexes the one being read.
	files, layouts        []string
	file                  int32
	lenient               bool
	re                    *regexp.Regexp
	hostG, clockG, eventG int
	fieldGroups           []int
	fieldNames            []string
	// The execution being built: its hosts by name, and its events'
	// clocks as written, until every host is known.
	hostIdx          map[string]int32
	raws             []rawClock
	scratch, touched []int32
}

// setRegex compiles expr and finds its groups.
func (p *parser) setRegex(expr string) error {
	re, err := CompileRegex(expr)
	if err != nil {
		return p.errf(0, "%s", err.Error())
	}
	p.re = re
	p.hostG, p.clockG, p.eventG = re.SubexpIndex("host"), re.SubexpIndex("clock"), re.SubexpIndex("event")
	var missing []string
	for _, g := range []struct {
		name string
		i    int
	}{{"host", p.hostG}, {"clock", p.clockG}, {"event", p.eventG}} {
		if g.i < 0 {
			missing = append(missing, g.name)
		}
	}
	if len(missing) > 0 {
		return p.errf(0, "the regular expression %q lacks the named group(s) %s (it needs host, clock and event)", expr, strings.Join(missing, ", "))
	}
	seen := map[string]bool{}
	p.fieldGroups, p.fieldNames = p.fieldGroups[:0], p.fieldNames[:0]
	for i, n := range re.SubexpNames() {
		if n != "" && seen[n] {
			return p.errf(0, "the regular expression has several groups named %q", n)
		}
		seen[n] = true
		if n != "" && i != p.hostG && i != p.clockG && i != p.eventG {
			p.fieldGroups = append(p.fieldGroups, i)
			p.fieldNames = append(p.fieldNames, n)
		}
	}
	return nil
}

// errf is an error at a line of the file being read (0: none).
func (p *parser) errf(line int, format string, args ...any) error {
	return &trace.InputError{File: p.files[p.file], Event: -1, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// evErrf is an error at an event's clock, in whichever file it is.
func (p *parser) evErrf(ev *Event, format string, args ...any) error {
	return &trace.InputError{File: p.files[ev.File], Event: -1, Line: ev.ClockLine, Msg: fmt.Sprintf(format, args...)}
}

// at names where an event's clock is, for messages about another event:
// "line 7", or "line 7 of b.log" when it is in another file than ref.
func (p *parser) at(ev, ref *Event) string {
	if ev.File == ref.File || len(p.files) == 1 {
		return fmt.Sprintf("line %d", ev.ClockLine)
	}
	return fmt.Sprintf("line %d of %s", ev.ClockLine, p.files[ev.File])
}
