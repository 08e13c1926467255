package compare

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/report"
	texttable "github.com/ckpt-dev/ckpt/report/table"
)

// Format is an output format of Render.
type Format string

// Formats of `ckpt compare`.
const (
	Text     Format = "text"
	JSON     Format = "json"
	Markdown Format = "markdown"
)

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Text, JSON, Markdown:
		return f, nil
	}
	return "", fmt.Errorf("--format %q: want text, json or markdown", s)
}

// Table is the rows of one trace, in protocol order.
type Table struct {
	File string
	// Processes and Events size the trace; Points counts the failure
	// points the per-failure figures range over (0 when not measured).
	Processes, Events, Points int
	Rows                      []Row
}

// header of the text and markdown tables.
var header = []string{"protocol", "basic", "forced", "forced/basic", "useless", "piggyback B/msg", "control msgs", "blocked s", "undone/failure mean", "max"}

// cells renders r's figures in header order; absent ratios are "–".
func cells(r *Row) []string {
	opt := func(v *float64, prec int) string {
		if v == nil {
			return "–"
		}
		return strconv.FormatFloat(*v, 'f', prec, 64)
	}
	mean, max := "–", "–"
	if pf := r.PerFailure; pf != nil && pf.Failures > 0 {
		mean, max = strconv.FormatFloat(pf.Mean, 'f', 2, 64), strconv.Itoa(pf.Max)
	}
	return []string{r.Protocol, strconv.Itoa(r.Basic), strconv.Itoa(r.Forced), opt(r.ForcedPerBasic, 2),
		strconv.Itoa(r.Useless), opt(r.PiggybackPerMessage, 1), strconv.Itoa(r.ControlMessages),
		r.Blocked.String(), mean, max}
}

// title says what a table is about.
func (t *Table) title() string {
	s := fmt.Sprintf("%s — %d processes, %d events", t.File, t.Processes, t.Events)
	if len(t.Rows) > 0 && t.Rows[0].Stripped > 0 {
		s += fmt.Sprintf(" (%d fail %s left out: failure-free placement)", t.Rows[0].Stripped, plural(t.Rows[0].Stripped, "event", "events"))
	}
	return s
}

// note explains the per-failure columns, or "" when they were not
// measured.
func (t *Table) note() string {
	if t.Points == 0 {
		return ""
	}
	return fmt.Sprintf("Ops undone per failure, over one failure at each of %d failure points: ms and pk replay each failure and recover (ckpt explore --failures 1); the others by Wang's maximum consistent recovery line over the checkpoints they placed before it (docs/protocols.md).", t.Points)
}

// Render writes the tables in format f. JSON is one array of every row
// of every table.
func Render(w io.Writer, f Format, tables []Table) error {
	switch f {
	case JSON:
		return writeJSON(w, tables)
	case Markdown:
		return writeMarkdown(w, tables)
	}
	return writeText(w, tables)
}

func writeJSON(w io.Writer, tables []Table) error {
	rows := []Row{}
	for _, t := range tables {
		rows = append(rows, t.Rows...)
	}
	return report.WriteJSON(w, rows)
}

func writeText(w io.Writer, tables []Table) error {
	var sb strings.Builder
	for i := range tables {
		t := &tables[i]
		if i > 0 {
			sb.WriteByte('\n')
		}
		texttable.Wrap(&sb, t.title(), "", "", texttable.Width)
		rows := make([][]string, len(t.Rows))
		for k := range t.Rows {
			rows[k] = cells(&t.Rows[k])
		}
		if err := textTable(&sb, header, rows); err != nil {
			return err
		}
		if n := t.note(); n != "" {
			texttable.Wrap(&sb, n, "", "", texttable.Width)
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// mdEscaper escapes what GitHub-flavoured markdown would read as markup
// in file names.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`<`, `&lt;`, `>`, `&gt;`, `|`, `\|`, "\n", " ")

func writeMarkdown(w io.Writer, tables []Table) error {
	var sb strings.Builder
	for i := range tables {
		t := &tables[i]
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString("### " + mdEscaper.Replace(t.title()) + "\n\n|")
		for _, h := range header {
			sb.WriteString(" " + h + " |")
		}
		sb.WriteString("\n|---|" + strings.Repeat("---:|", len(header)-1) + "\n")
		for k := range t.Rows {
			sb.WriteByte('|')
			for _, c := range cells(&t.Rows[k]) {
				sb.WriteString(" " + mdEscaper.Replace(c) + " |")
			}
			sb.WriteByte('\n')
		}
		if n := t.note(); n != "" {
			sb.WriteString("\n" + n + "\n")
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Quiet writes one line per trace and protocol, for scripts (`ckpt
// compare -q`): FILE, protocol, basic, forced, useless, piggyback bytes
// and control messages, tab-separated — the figures of the JSON's
// "file", "protocol", "basic", "forced", "useless", "piggyback_bytes"
// and "control_messages".
func Quiet(w io.Writer, tables []Table) error {
	var sb strings.Builder
	for _, t := range tables {
		for _, r := range t.Rows {
			fmt.Fprintf(&sb, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", r.File, r.Protocol, r.Basic, r.Forced, r.Useless, r.PiggybackBytes, r.ControlMessages)
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
