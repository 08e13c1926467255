package shiviz

import (
	"bufio"
	"io"
	"slices"
	"strings"
)

// maxLogSize bounds what Parse reads: ShiViz itself holds a log in a
// browser tab, and the largest real log is about a megabyte.
const maxLogSize = 1 << 30

// maxLine bounds a line: longer means the input is not a log (a binary,
// /dev/zero), which is refused after a megabyte instead of read whole.
const maxLine = 1 << 20

// chunk is the text of one execution, text[from:to], and its label.
type chunk struct {
	label    string
	from, to int
}

// open reads a file and sets the regex its events are matched with,
// deciding on the file's first 64 KiB, before the rest is read, so that
// what is no log is refused at once. It returns the text and the parts
// of it to match, one per execution: ShiViz trims the whole log before
// parsing; the offsets keep line numbers those of the file.
func (p *parser) open(src Source, opts ParseOptions) (string, []chunk, error) {
	br := bufio.NewReaderSize(src.R, sampleSize)
	head, _ := br.Peek(sampleSize)
	start, layout := 0, "DistributedClocks tracing records"
	if !src.Tracing {
		var err error
		if opts.Delimiter != "" {
			if p.delim, err = CompileRegex(opts.Delimiter); err != nil {
				return "", nil, p.errf(0, "delimiter: %s", err.Error())
			}
		}
		if start, layout, err = p.chooseRegex(string(head), len(head) < sampleSize, opts.Regex); err != nil {
			return "", nil, err
		}
	}
	p.layouts = append(p.layouts, layout)
	text, err := p.readLog(br)
	if err != nil {
		return "", nil, err
	}
	const space = " \t\n\r\f\v"
	end := len(strings.TrimRight(text, space))
	if start < end {
		start = end - len(strings.TrimLeft(text[start:end], space))
	}
	if start >= end {
		return "", nil, p.errf(0, "empty log")
	}
	if p.delim == nil {
		return text, []chunk{{"", start, end}}, nil
	}
	// Each delimiter labels the execution that follows it.
	var chunks []chunk
	ti := p.delim.SubexpIndex("trace")
	label, from := "", start
	for _, m := range p.delim.FindAllStringSubmatchIndex(text[start:end], -1) {
		chunks = append(chunks, chunk{label, from, start + m[0]})
		label = ""
		if ti > 0 && m[2*ti] >= 0 {
			label = text[start+m[2*ti] : start+m[2*ti+1]]
		}
		from = start + m[1]
	}
	return text, append(chunks, chunk{label, from, end}), nil
}

// readLog reads the whole log, bounded by maxLogSize and maxLine, with
// Windows line endings made Unix ones: they would leave \r in every
// captured group and defeat $ in multi-line mode.
func (p *parser) readLog(r io.Reader) (string, error) {
	// A strings.Builder holds the log once; reading into a []byte and
	// converting would hold it twice.
	var sb strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine+1)
	line := 0
	for sc.Scan() {
		line++
		sb.Write(sc.Bytes())
		sb.WriteByte('\n')
		if sb.Len() > maxLogSize {
			return "", p.errf(0, "log larger than 1 GiB")
		}
	}
	if err := sc.Err(); err == bufio.ErrTooLong {
		return "", p.errf(line+1, "line longer than %d bytes: not a log", maxLine)
	} else if err != nil {
		return "", p.errf(line+1, "%v", err)
	}
	return sb.String(), nil
}

// setRegex compiles expr and finds its groups.
func (p *parser) setRegex(expr string) error {
	re, err := CompileRegex(expr)
	if err != nil {
		return p.errf(0, "%s", err.Error())
	}
	var missing []string
	for _, g := range []string{"host", "clock", "event"} {
		if re.SubexpIndex(g) < 0 {
			missing = append(missing, g)
		}
	}
	if len(missing) > 0 {
		return p.errf(0, "the regular expression %q lacks the named group(s) %s (it needs host, clock and event)", expr, strings.Join(missing, ", "))
	}
	p.re, p.fieldGroups = re, nil
	p.hostG, p.clockG, p.eventG = re.SubexpIndex("host"), re.SubexpIndex("clock"), re.SubexpIndex("event")
	names := re.SubexpNames()
	for i, n := range names {
		if n != "" && slices.Index(names, n) < i {
			return p.errf(0, "the regular expression has several groups named %q", n)
		}
		if n != "" && i != p.hostG && i != p.clockG && i != p.eventG {
			p.fieldGroups = append(p.fieldGroups, i)
		}
	}
	return nil
}

// layout says how each file was read: once if alike.
func (p *parser) layout() string {
	if !slices.ContainsFunc(p.layouts, func(l string) bool { return l != p.layouts[0] }) {
		return p.layouts[0]
	}
	each := make([]string, len(p.layouts))
	for i, l := range p.layouts {
		each[i] = p.log.Files[i] + ": " + l
	}
	return strings.Join(each, "; ")
}
