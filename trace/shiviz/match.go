package shiviz

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

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
	names := p.re.SubexpNames()
	line, pos := firstLine, 0
	for _, m := range matches {
		line += strings.Count(text[pos:m[0]], "\n")
		pos = m[0]
		clockLine := line
		if m[2*p.clockG] >= 0 {
			clockLine += strings.Count(text[m[0]:m[2*p.clockG]], "\n")
		}
		var fields []Field
		for _, g := range p.fieldGroups {
			fields = append(fields, Field{names[g], group(text, m, g)})
		}
		err := p.addEvent(ex, group(text, m, p.hostG), group(text, m, p.clockG), group(text, m, p.eventG), fields, line, clockLine)
		if err != nil {
			return err
		}
	}
	n, _ := unmatched(text, matches, true)
	ex.Skipped += n
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
		if len(clock) > 80 {
			clock = clock[:80] + "…"
		}
		return p.errf(clockLine, "cannot parse the vector clock %s of host %q: %v", strconv.Quote(clock), host, err)
	}
	ex.Events = append(ex.Events, Event{Host: h, File: p.file, Line: line, ClockLine: clockLine, Text: text, Fields: fields})
	p.raws = append(p.raws, rc)
	return nil
}
