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
	"fmt"
	"io"
	"regexp"
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
	// Skipped counts the non-blank lines no match covered.
	Skipped int
	// Notes say what the import decided or repaired, for its summary.
	Notes []string
}

// Messages counts the message edges.
func (ex *Execution) Messages() (n int) {
	for i := range ex.Events {
		n += len(ex.Events[i].Parents)
	}
	return n
}

// Log is a parsed log.
type Log struct {
	// Files name the log's files.
	Files []string
	// Layout says how the events were cut from the text.
	Layout     string
	Executions []*Execution
}

// CompileRegex compiles a ShiViz expression for Go. ShiViz applies it in
// JavaScript's multi-line mode, so ^ and $ match at line breaks; Go
// accepts the (?<name>...) group syntax natively since Go 1.22.
func CompileRegex(expr string) (*regexp.Regexp, error) {
	// Compiled alone first, so that an error quotes what the user wrote.
	if _, err := regexp.Compile(expr); err != nil {
		return nil, fmt.Errorf("bad regular expression %q: %v", expr, err)
	}
	return regexp.Compile("(?m)" + expr)
}

// Parse reads a log from one file or several (one per process, as
// GoVector writes them, merged into one execution) and infers each
// execution's message edges and causal order. Any problem is a
// *trace.InputError naming the file and the line. A regex or delimiter
// that does not compile, or lacks the host, clock or event group, is an
// error too, and so is a text whose layout cannot be told. A byte-order
// mark is the caller's to skip (foreign.Read does, for every format).
func Parse(srcs []Source, opts ParseOptions) (*Log, error) {
	if len(srcs) > 1 && opts.Delimiter != "" {
		return nil, inputError(srcs[0].Name, 0, "a delimiter splits one file into executions; give one file")
	}
	p := &parser{lenient: opts.Lenient, log: &Log{}}
	var ex *Execution
	labels := map[string]bool{}
	for i, src := range srcs {
		p.file = int32(i)
		p.log.Files = append(p.log.Files, src.Name)
		text, chunks, err := p.open(src, opts)
		if err != nil {
			return nil, err
		}
		line, pos := 1, 0
		for _, c := range chunks {
			if strings.TrimSpace(text[c.from:c.to]) == "" {
				continue
			}
			line += strings.Count(text[pos:c.from], "\n")
			pos = c.from
			// Without a delimiter, the files make one execution.
			if ex == nil || p.delim != nil {
				if ex != nil {
					if err := p.finish(ex); err != nil {
						return nil, err
					}
				}
				if labels[c.label] {
					return nil, p.errf(line, "two executions are labelled %q; execution labels must be unique", c.label)
				}
				labels[c.label] = true
				p.hostIdx, p.raws = map[string]int32{}, p.raws[:0]
				ex = &Execution{Label: c.label}
				p.log.Executions = append(p.log.Executions, ex)
			}
			if err := p.match(ex, text[c.from:c.to], line, src.Tracing); err != nil {
				return nil, err
			}
		}
	}
	if ex == nil {
		return nil, p.errf(0, "no execution with any text")
	}
	if err := p.finish(ex); err != nil {
		return nil, err
	}
	p.log.Layout = p.layout()
	return p.log, nil
}

// parser holds what Parse threads through the files.
type parser struct {
	log *Log
	// file indexes the file being read; layouts say how each was read.
	file    int32
	layouts []string
	lenient bool
	// re matches an event of the file being read; delim, if any, the
	// delimiter between executions.
	re, delim             *regexp.Regexp
	hostG, clockG, eventG int
	fieldGroups           []int
	// The execution being built: its hosts by name, and its events'
	// clocks as written, until every host is known.
	hostIdx map[string]int32
	raws    []rawClock
}

// inputError is an error of the log file at line (0: none, as for the
// options, which are checked before any event is converted).
func inputError(file string, line int, format string, args ...any) error {
	return &trace.InputError{File: file, Event: -1, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// errf is an error at a line of the file being read (0: none).
func (p *parser) errf(line int, format string, args ...any) error {
	return inputError(p.log.Files[p.file], line, format, args...)
}

// evErrf is an error at an event's clock, in whichever file it is.
func (p *parser) evErrf(ev *Event, format string, args ...any) error {
	return inputError(p.log.Files[ev.File], ev.ClockLine, format, args...)
}

// at names where an event's clock is, for messages about another event:
// "line 7", or "line 7 of b.log" when it is in another file than ref.
func (p *parser) at(ev, ref *Event) string {
	if ev.File == ref.File || len(p.log.Files) == 1 {
		return fmt.Sprintf("line %d", ev.ClockLine)
	}
	return fmt.Sprintf("line %d of %s", ev.ClockLine, p.log.Files[ev.File])
}
