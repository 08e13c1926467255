package shiviz

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// chunk is the text of one execution, text[from:to], and its label.
type chunk struct {
	label string
	from  int
	to    int
}

// executions cuts text[start:end] at the delimiter's matches, each
// labelling the execution that follows it (without a delimiter it is
// one), and builds every execution that has text, keeping file line
// numbers and rejecting duplicate labels, which would name two outputs
// alike.
func (p *parser) executions(log *Log, text string, start, end int, delimiter string) (*Log, error) {
	chunks, err := p.split(text, start, end, delimiter)
	if err != nil {
		return nil, err
	}
	labels := map[string]bool{}
	line, pos := 1, 0
	for _, c := range chunks {
		if strings.TrimSpace(text[c.from:c.to]) == "" {
			continue
		}
		line += strings.Count(text[pos:c.from], "\n")
		pos = c.from
		if labels[c.label] {
			return nil, p.errf(line, "two executions are labelled %q; execution labels must be unique", c.label)
		}
		labels[c.label] = true
		ex := p.begin(c.label)
		if err := p.match(ex, text[c.from:c.to], line, false); err != nil {
			return nil, err
		}
		if err := p.finish(ex); err != nil {
			return nil, err
		}
		log.Executions = append(log.Executions, ex)
	}
	if len(log.Executions) == 0 {
		return nil, p.errf(0, "no execution with any text")
	}
	return log, nil
}

// split cuts text[start:end] at the delimiter's matches.
func (p *parser) split(text string, start, end int, delimiter string) ([]chunk, error) {
	if delimiter == "" {
		return []chunk{{"", start, end}}, nil
	}
	dre, err := CompileRegex(delimiter)
	if err != nil {
		return nil, p.errf(0, "delimiter: %s", err.Error())
	}
	var chunks []chunk
	ti := dre.SubexpIndex("trace")
	label, from := "", start
	for _, m := range dre.FindAllStringSubmatchIndex(text[start:end], -1) {
		chunks = append(chunks, chunk{label, from, start + m[0]})
		label = ""
		if ti > 0 && m[2*ti] >= 0 {
			label = text[start+m[2*ti] : start+m[2*ti+1]]
		}
		from = start + m[1]
	}
	return append(chunks, chunk{label, from, end}), nil
}

// begin starts an execution.
func (p *parser) begin(label string) *Execution {
	p.hostIdx, p.raws = map[string]int32{}, p.raws[:0]
	return &Execution{Label: label}
}

// match adds the events of text, whose first line is line firstLine of
// the file being read, to ex: regex matches, or tracing records.
func (p *parser) match(ex *Execution, text string, firstLine int, tracing bool) error {
	if tracing {
		return p.matchTracing(ex, text, firstLine)
	}
	matches := p.re.FindAllStringSubmatchIndex(text, -1)
	if len(matches) == 0 {
		what := "the log"
		if ex.Label != "" {
			what = fmt.Sprintf("execution %q", ex.Label)
		}
		return p.errf(firstLine, "the regular expression %q matches no event in %s", strings.TrimPrefix(p.re.String(), "(?m)"), what)
	}
	line, pos := firstLine, 0
	cov := coverage{last: -1}
	for _, m := range matches {
		line += strings.Count(text[pos:m[0]], "\n")
		pos = m[0]
		clockLine := line
		if m[2*p.clockG] >= 0 {
			clockLine += strings.Count(text[m[0]:m[2*p.clockG]], "\n")
		}
		var fields []Field
		for j, g := range p.fieldGroups {
			fields = append(fields, Field{p.fieldNames[j], group(text, m, g)})
		}
		err := p.addEvent(ex, group(text, m, p.hostG), group(text, m, p.clockG), group(text, m, p.eventG), fields, line, clockLine)
		if err != nil {
			return err
		}
		cov.add(line, text[m[0]:m[1]])
	}
	ex.Skipped += max(countNonBlankLines(text)-cov.covered, 0)
	return nil
}

func group(text string, m []int, g int) string {
	if m[2*g] < 0 {
		return ""
	}
	return text[m[2*g]:m[2*g+1]]
}

// addEvent adds one event, adding its host to ex.Hosts on first sight;
// its clock stays as written until every host is known.
func (p *parser) addEvent(ex *Execution, host, clock, text string, fields []Field, line, clockLine int) error {
	if host == "" {
		return p.errf(line, "the host group matched an empty host name")
	}
	if !utf8.ValidString(host) {
		return p.errf(line, "the host name %q is not valid UTF-8", host)
	}
	h, ok := p.hostIdx[host]
	if !ok {
		h = int32(len(ex.Hosts))
		p.hostIdx[host] = h
		ex.Hosts = append(ex.Hosts, host)
	}
	rc, err := parseClock(clock)
	if err != nil {
		return p.errf(clockLine, "cannot parse the vector clock %s of host %q: %v", quoteShort(clock), host, err)
	}
	ex.Events = append(ex.Events, Event{Host: h, File: p.file, Line: line, ClockLine: clockLine, Text: text, Fields: fields})
	p.raws = append(p.raws, rc)
	return nil
}

// coverage counts the lines that matches cover, once each even where
// matches share a line, for the skipped-lines count.
type coverage struct {
	covered int
	// last is the last line covered so far (-1: none).
	last int
}

// add counts the lines of match, which starts at line.
func (c *coverage) add(line int, match string) {
	nl := strings.Count(match, "\n")
	span := nl + 1
	if line <= c.last {
		span -= c.last - line + 1
	}
	if span > 0 {
		c.covered += span
		c.last = line + nl
	}
}

func countNonBlankLines(s string) int {
	n := 0
	for len(s) > 0 {
		line, rest, _ := strings.Cut(s, "\n")
		if strings.TrimSpace(line) != "" {
			n++
		}
		s = rest
	}
	return n
}
