package compare

import (
	"io"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/report"
	texttable "github.com/ckpt-dev/ckpt/report/table"
	"github.com/ckpt-dev/ckpt/trace"
)

// sweepJSON is one sweep row in `--format json`.
type sweepJSON struct {
	Ratio               float64    `json:"ict_per_mtt"`
	ICT                 trace.Time `json:"ict"`
	Protocol            string     `json:"protocol"`
	Basic               int        `json:"basic"`
	Forced              int        `json:"forced"`
	ForcedPerBasic      *float64   `json:"forced_per_basic"`
	Useless             int        `json:"useless"`
	Messages            int        `json:"messages"`
	PiggybackBytes      int64      `json:"piggyback_bytes"`
	PiggybackPerMessage *float64   `json:"piggyback_bytes_per_message"`
	ControlMessages     int        `json:"control_messages"`
	Blocked             trace.Time `json:"blocked"`
}

// RenderSweep writes the sweep's forced checkpoints per basic checkpoint
// as a table of ratios by protocols (text, markdown), or every row with
// its counts (json).
func RenderSweep(w io.Writer, f Format, o SweepOptions, rows []SweepRow) error {
	if o.Protocols == nil {
		o.Protocols = Protocols
	}
	if f == JSON {
		out := make([]sweepJSON, len(rows))
		for i, sr := range rows {
			r := &sr.Row
			out[i] = sweepJSON{sr.Ratio, sr.ICT, sr.Protocol, r.Basic, r.Forced, r.ForcedPerBasic, r.Useless,
				r.Messages, r.PiggybackBytes, r.PiggybackPerMessage, r.ControlMessages, r.Blocked}
		}
		return report.WriteJSON(w, out)
	}
	header := append([]string{"ICT/MTT"}, o.Protocols...)
	var table [][]string
	for i, sr := range rows {
		if i%len(o.Protocols) == 0 {
			table = append(table, []string{label(sr.Ratio)})
		}
		v := "–"
		if p := sr.Row.ForcedPerBasic; p != nil {
			v = strconv.FormatFloat(*p, 'f', 2, 64)
		}
		last := &table[len(table)-1]
		*last = append(*last, v)
	}
	title := "Forced checkpoints per basic checkpoint. " + (&chart{o: o}).workload()
	var sb strings.Builder
	if f == Markdown {
		sb.WriteString("### " + mdEscaper.Replace(title) + "\n\n| " + strings.Join(header, " | ") + " |\n|")
		sb.WriteString(strings.Repeat("---:|", len(header)) + "\n")
		for _, r := range table {
			sb.WriteString("| " + strings.Join(r, " | ") + " |\n")
		}
	} else {
		texttable.Wrap(&sb, title, "", "", texttable.Width)
		if err := textTable(&sb, header, table); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// textTable writes a table fitted to the terminal (package table), its
// first column left-aligned and the key of every part a split makes, the
// others right-aligned.
func textTable(sb *strings.Builder, header []string, rows [][]string) error {
	right := make([]bool, len(header))
	for i := 1; i < len(right); i++ {
		right[i] = true
	}
	_, err := texttable.NewWriter(sb).Write(&texttable.Table{Header: header, Right: right, Rows: texttable.Plain(rows)}, texttable.Width, false)
	return err
}
