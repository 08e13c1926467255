package shiviz

import (
	"regexp"
	"strings"
)

// DefaultRegex is ShiViz's default parser expression: an event line
// followed by a "host {clock}" line.
const DefaultRegex = `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`

// GoVectorRegex matches the logs GoVector writes: a "host {clock}" line
// followed by the event's text.
const GoVectorRegex = `(?<host>\S*) (?<clock>{.*})\n(?<event>.*)`

// sampleSize is how much of a file its layout is decided on.
const sampleSize = 64 << 10

var (
	defaultRe  = regexp.MustCompile("(?m)" + DefaultRegex)
	goVectorRe = regexp.MustCompile("(?m)" + GoVectorRegex)
)

// chooseRegex picks the expression to match a file's events with, from
// head, its first bytes (whole: all of it): the one given, else the
// file's first line if it is one (Export and the tracing server write
// it), else the layout detected. skip is the length of the first line
// (with its newline) when it is the expression.
func (p *parser) chooseRegex(head string, whole bool, expr, delimiter string) (_ string, skip int, layout string, err error) {
	head = strings.ReplaceAll(strings.TrimPrefix(head, "\ufeff"), "\r\n", "\n")
	switch first, _, ok := strings.Cut(head, "\n"); {
	case whole && strings.TrimSpace(head) == "":
		return "", 0, "", p.errf(0, "empty log")
	case expr != "":
		return expr, 0, "the regular expression given", nil
	case ok && looksLikeRegex(first):
		return first, len(first) + 1, "the regular expression on its first line", nil
	case delimiter != "":
		// The delimiter's lines belong to no event.
		dre, err := CompileRegex(delimiter)
		if err != nil {
			return "", 0, "", p.errf(0, "delimiter: %s", err.Error())
		}
		head = dre.ReplaceAllString(head, "")
	}
	return p.detectLayout(head, whole)
}

// looksLikeRegex recognises a first line that is a parser expression (as
// Export writes it) rather than log text.
func looksLikeRegex(line string) bool {
	for _, g := range []string{"host", "clock", "event"} {
		if !strings.Contains(line, "(?<"+g+">") && !strings.Contains(line, "(?P<"+g+">") {
			return false
		}
	}
	return true
}

// detectLayout tells GoVector's layout (host and clock line first) from
// ShiViz's default (event text first) by which leaves fewer lines of
// head unmatched. On a tie the one whose only unmatched line is the
// first is taken: a title line, as GoVector may write, rather than an
// event text after the last clock (ShiViz's if both do). Otherwise it
// refuses, since the wrong
// layout would silently give every event its neighbour's text.
func (p *parser) detectLayout(head string, whole bool) (string, int, string, error) {
	if !whole {
		head = head[:strings.LastIndexByte(head, '\n')+1]
	}
	gv, sv := fit(goVectorRe, head, whole), fit(defaultRe, head, whole)
	if gv.events == 0 && sv.events == 0 {
		return "", 0, "", p.errf(0, "no line of the form `HOST {CLOCK}` in the first %d KiB: not a ShiViz or GoVector log (give --regex if its events are laid out otherwise)", sampleSize>>10)
	}
	expr, best, layout := GoVectorRegex, gv, "GoVector's layout (a host and clock line, then the event's text)"
	switch {
	case gv.skipped < sv.skipped, gv.skipped == sv.skipped && gv.titleOnly() && !sv.titleOnly():
	case sv.skipped < gv.skipped, sv.titleOnly():
		expr, best, layout = DefaultRegex, sv, "ShiViz's default layout (the event's text, then a host and clock line)"
	default:
		return "", 0, "", p.errf(0, "cannot tell whether each event's text comes before or after its `HOST {CLOCK}` line (either way %d lines are left unmatched); give --regex '%s' (text first) or --regex '%s' (clock line first)", gv.skipped, DefaultRegex, GoVectorRegex)
	}
	if best.titleOnly() {
		layout += ", after a title line"
	}
	if best.skipped > best.events {
		return "", 0, "", p.errf(0, "only %d events but %d other lines in the first %d KiB: not a ShiViz or GoVector log (give --regex if its events are laid out otherwise)", best.events, best.skipped, sampleSize>>10)
	}
	return expr, 0, layout, nil
}

// fitness is how a layout fits a text: events matched, non-blank lines
// left unmatched, and whether the first of those is unmatched.
type fitness struct {
	events, skipped int
	firstSkipped    bool
}

// titleOnly reports that the one line unmatched is the first.
func (f fitness) titleOnly() bool { return f.skipped == 1 && f.firstSkipped }

// fit matches re over head; unless whole, head may end inside an event,
// so its last line does not count as unmatched.
func fit(re *regexp.Regexp, head string, whole bool) fitness {
	lines := strings.Split(head, "\n")
	covered := make([]bool, len(lines))
	var f fitness
	line, pos := 0, 0
	for _, m := range re.FindAllStringIndex(head, -1) {
		line += strings.Count(head[pos:m[0]], "\n")
		pos = m[0]
		for k := 0; k <= strings.Count(head[m[0]:m[1]], "\n"); k++ {
			covered[line+k] = true
		}
		f.events++
	}
	first, last := -1, -1
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			last = i
			if first < 0 {
				first = i
			}
		}
	}
	for i, l := range lines {
		if covered[i] || strings.TrimSpace(l) == "" || !whole && i == last {
			continue
		}
		f.skipped++
		f.firstSkipped = f.firstSkipped || i == first
	}
	return f
}
