package diagram

import (
	"html/template"
	"strings"
)

// legendItem is one entry of the legend, in the SVG and on the page
// (assets/page.html): a sample drawn at (0,0) in a box 30 px wide, and
// its meaning. Key names what must be in the diagram for the entry to be
// shown: a legend lists only what the reader can find.
type legendItem struct {
	Key, Label string
	Sample     template.HTML
}

var legend = []legendItem{
	{"ev-send", "send", `<circle class="ev ev-send" cx="15" cy="0" r="4.5"/>`},
	{"ev-recv", "receive", `<circle class="ev ev-recv" cx="15" cy="0" r="4.5"/>`},
	{"ev-internal", "internal op", `<circle class="ev ev-internal" cx="15" cy="0" r="4"/>`},
	{"undone", "undone (faded)", `<circle class="ev ev-send undone" cx="15" cy="0" r="4.5"/>`},
	{"ckpt-initial", "initial checkpoint", `<rect class="ckpt ckpt-initial" x="11" y="-8" width="8" height="16"/>`},
	{"ckpt-basic", "basic checkpoint", `<rect class="ckpt ckpt-basic" x="11" y="-8" width="8" height="16"/>`},
	{"ckpt-forced", "forced checkpoint", `<rect class="ckpt ckpt-forced" x="11" y="-8" width="8" height="16"/>`},
	{"ckpt-recovery", "recovery checkpoint", `<rect class="ckpt ckpt-recovery" x="11" y="-8" width="8" height="16"/>`},
	{"thrown", "checkpoint thrown away", `<rect class="ckpt ckpt-basic discarded" x="11" y="-8" width="8" height="16"/>`},
	{"ev-skipped", "skipped tick", `<path class="ev ev-skipped" d="M15 -7 V7"/>`},
	{"ev-fail", "failure, down time", `<rect class="down" x="15" y="-10" width="15" height="20"/><path class="ev ev-fail" d="M9 -6 L21 6 M9 6 L21 -6"/>`},
	{"ev-restart", "restart", `<path class="ev ev-restart" d="M15 -9 V9"/>`},
	{"ev-rollback", "rollback", `<path class="ev ev-rollback" d="M15 -9 V9"/>`},
	{"jump", "back to the restored checkpoint", `<path class="jump" d="M28 0 C28 -14 4 -14 4 -1" marker-end="url(#ah-jump)"/>`},
	{"rline", "recovery line", `<path class="rline" d="M2 -8 L28 8"/>`},
	{"msg-normal", "message", `<path class="msg msg-normal" d="M0 0 H26" marker-end="url(#ah-normal)"/>`},
	{"msg-orphan", "orphan (send undone)", `<path class="msg msg-orphan" d="M0 0 H26" marker-end="url(#ah-orphan)"/>`},
	{"msg-lost", "lost (never received)", `<path class="msg msg-lost" d="M0 0 H26" marker-end="url(#ah-lost)"/>`},
	{"msg-discarded", "discarded (stale / duplicate)", `<path class="msg msg-discarded" d="M0 0 H26" marker-end="url(#ah-discarded)"/>`},
	{"msg-replayed", "replayed from the log", `<path class="msg msg-replayed" d="M0 0 H26" marker-end="url(#ah-replayed)"/>`},
	{"msg-resent", "resent", `<path class="msg msg-resent" d="M0 0 H26" marker-end="url(#ah-resent)"/>`},
	{"ev-discard", "copy discarded", `<path class="ev ev-discard reason-stale" d="M11 -4 L19 4 M11 4 L19 -4"/>`},
	{"ctl", "control message", `<path class="ctl" d="M0 0 H26" marker-end="url(#ah-ctl)"/>`},
	{"held", "held (waits)", `<path class="held" d="M2 0 H28"/><path class="ev ev-hold" d="M8 -5 L13 0 L8 5 L3 0 z"/>`},
	{"ev-resume", "resume (token back)", `<path class="ev ev-resume" d="M12 -5 L19 0 L12 5 z"/>`},
	{"ev-unconsumed", "left in the mailbox", `<circle class="ev ev-unconsumed" cx="15" cy="0" r="3.5"/>`},
	{"lost-mark", "receive blocked forever", `<path class="lost-mark" d="M9 -6 L21 6 M9 6 L21 -6"/>`},
	{"ev-end", "end of process", `<path class="ev ev-end" d="M15 -7 V7"/>`},
	{"viol", "violation witness", `<circle class="viol" cx="15" cy="0" r="8"/>`},
	{"diff", "ran a different number of times under the other algorithm", `<circle class="ev ev-send" cx="15" cy="0" r="4.5"/><circle class="diff" cx="15" cy="0" r="8"/>`},
}

// used marks, in have, the legend entries this diagram draws: the
// words of its marks' classes (legend keys name them), and what else it
// draws.
func (m *model) used(have map[string]bool) {
	have["ckpt-initial"] = true
	for i, d := range m.drawn {
		if d {
			for _, w := range strings.Fields(m.markClass(int32(i))) {
				have[w] = true
			}
		}
	}
	have["thrown"] = have["thrown"] || have["discarded"]
	for _, a := range m.arrows {
		have["msg-"+a.style] = true
	}
	if len(m.lost) > 0 {
		have["msg-lost"], have["lost-mark"] = true, true
	}
	have["ctl"] = have["ctl"] || len(m.ctl) > 0
	have["jump"] = have["jump"] || len(m.jumps) > 0
	have["rline"] = have["rline"] || len(m.lines) > 0
	have["held"] = have["held"] || have["ev-hold"] || len(m.holds) > 0
	have["viol"] = have["viol"] || len(m.violOf) > 0
	have["diff"] = have["diff"] || len(m.notes) > 0
}

// usedUnion is the legend entries any panel draws, in legend order.
func usedUnion(panels []*model) []legendItem {
	have := map[string]bool{}
	for _, m := range panels {
		m.used(have)
	}
	var out []legendItem
	for _, it := range legend {
		if have[it.Key] {
			out = append(out, it)
		}
	}
	return out
}

// legendRows flows the entries into rows no wider than width, so none
// is cut off.
func legendRows(items []legendItem, width float64) [][]legendItem {
	var rows [][]legendItem
	used := 0.0 // the width of the last row
	for _, it := range items {
		w := legendItemW(it)
		if len(rows) == 0 || used > 0 && used+w > width {
			rows, used = append(rows, nil), 0
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], it)
		used += w
	}
	return rows
}

func legendItemW(it legendItem) float64 { return 36 + textWidth(it.Label, textFont, false) + 22 }

func legendSVG(x *xw, rows [][]legendItem, top float64) {
	x.raw(`<g class="legend">`)
	for r, row := range rows {
		lx := 10.0
		for _, it := range row {
			x.put(`<g class="legend-item" data-item="%v" transform="translate(%v %v)">%s<text x="36" y="4.5">`, it.Key, lx, top+float64(r)*legendRowH+8, it.Sample)
			x.escText(it.Label)
			x.raw("</text></g>")
			lx += legendItemW(it)
		}
	}
	x.raw("</g>\n")
}
