package shiviz

import (
	"regexp"
	"strings"
	"unicode"
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

// chooseRegex sets the expression to match a file's events with, chosen
// from head, its first bytes (whole: all of it): the one given, else the
// file's first line if it is one (Export and the tracing server write
// it), else the layout detected. It returns how it chose, and the length
// of the first line (with its newline) when that is the expression.
func (p *parser) chooseRegex(head string, whole bool, expr string) (skip int, layout string, err error) {
	// The text is read with Windows line ends made Unix ones (readLog):
	// so is head, and skip counts in it.
	head = strings.ReplaceAll(head, "\r\n", "\n")
	lf := head
	switch first, _, ok := strings.Cut(head, "\n"); {
	case whole && strings.TrimSpace(head) == "":
		return 0, "", p.errf(0, "empty log")
	case expr != "":
		layout = "the regular expression given"
	case ok && looksLikeRegex(first):
		expr, skip, layout = first, len(first)+1, "the regular expression on its first line"
	default:
		if p.delim != nil {
			head = p.delim.ReplaceAllString(head, "") // the delimiter's lines belong to no event
		}
		if expr, layout, err = p.detectLayout(head, whole); err != nil {
			return 0, "", err
		}
	}
	if err := p.setRegex(expr); err != nil {
		return 0, "", err
	}
	if !whole && !p.re.MatchString(lf[min(skip, len(lf)):strings.LastIndexByte(lf, '\n')+1]) {
		return 0, "", p.errf(0, "the regular expression %q matches no event in the first %d KiB: not a log it reads", expr, sampleSize>>10)
	}
	return skip, layout, nil
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
// refuses, since the wrong layout would silently give every event its
// neighbour's text.
func (p *parser) detectLayout(head string, whole bool) (expr, layout string, err error) {
	if !whole {
		head = head[:strings.LastIndexByte(head, '\n')+1]
	}
	gv, sv := fit(goVectorRe, head, whole), fit(defaultRe, head, whole)
	if gv.events == 0 && sv.events == 0 {
		return "", "", p.errf(0, "no line of the form `HOST {CLOCK}` in the first %d KiB: not a ShiViz or GoVector log (give --regex if its events are laid out otherwise)", sampleSize>>10)
	}
	expr, best, layout := GoVectorRegex, gv, "GoVector's layout (a host and clock line, then the event's text)"
	switch {
	case gv.skipped < sv.skipped, gv.skipped == sv.skipped && gv.titleOnly() && !sv.titleOnly():
	case sv.skipped < gv.skipped, sv.titleOnly():
		expr, best, layout = DefaultRegex, sv, "ShiViz's default layout (the event's text, then a host and clock line)"
	default:
		return "", "", p.errf(0, "cannot tell whether each event's text comes before or after its `HOST {CLOCK}` line (either way %d lines are left unmatched); give --regex '%s' (text first) or --regex '%s' (clock line first)", gv.skipped, DefaultRegex, GoVectorRegex)
	}
	if best.titleOnly() {
		layout += ", after a title line"
	}
	if best.skipped > best.events {
		return "", "", p.errf(0, "only %d events but %d other lines in the first %d KiB: not a ShiViz or GoVector log (give --regex if its events are laid out otherwise)", best.events, best.skipped, sampleSize>>10)
	}
	return expr, layout, nil
}

// fitness is how a layout fits a text: events matched, non-blank lines
// left unmatched, and whether the first of those is unmatched.
type fitness struct {
	events, skipped int
	firstSkipped    bool
}

// titleOnly reports that the one line unmatched is the first.
func (f fitness) titleOnly() bool { return f.skipped == 1 && f.firstSkipped }

func fit(re *regexp.Regexp, head string, whole bool) fitness {
	m := re.FindAllStringIndex(head, -1)
	n, first := unmatched(head, m, whole)
	return fitness{len(m), n, first}
}

// unmatched counts the non-blank lines of text that no match (text[m[0]:
// m[1]], in order) touches, and says whether the first non-blank line
// is one of them; unless whole, text may end inside an event, so its
// last non-blank line does not count.
func unmatched(text string, matches [][]int, whole bool) (n int, first bool) {
	last := -1 // where the last non-blank line starts
	if !whole {
		last = strings.LastIndexByte(strings.TrimRightFunc(text, unicode.IsSpace), '\n') + 1
	}
	seen := false
	for pos := 0; pos <= len(text); {
		line, _, _ := strings.Cut(text[pos:], "\n")
		end := pos + len(line)
		for len(matches) > 0 && matches[0][1] < pos {
			matches = matches[1:]
		}
		if strings.TrimSpace(line) != "" {
			if (len(matches) == 0 || matches[0][0] > end) && pos != last {
				n++
				first = first || !seen
			}
			seen = true
		}
		pos = end + 1
	}
	return n, first
}
