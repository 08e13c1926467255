package diagram

import (
	"slices"
	"strings"
	"unicode"
)

// Lane names too long for their column are shortened so that lanes stay
// told apart (issue 18): four lanes named
// a-very-long-process-name-number-0N-of-the-cluster.example.org, cut in
// the middle, all read "a-very-long-proce…uster.example.org", since what
// differs is exactly what the cut takes out. A name is shortened around
// its distinguishing part instead — what lies between its longest
// prefix and its longest suffix shared with another lane, widened to the
// word (letters and digits) it is in — which is kept whole; the rest of
// the width goes to the name's beginning and end, turn about, with an
// ellipsis where text is left out:
// "a-very-long-proc…01…cluster.example.org". The page (core.js,
// fitLanes) does the same with measured text; the full name is always
// the label's tooltip.

// laneLabels returns the label of every name (the lanes of one panel)
// in width px of text of the given size.
func laneLabels(names []string, size float64, bold bool, width float64) []string {
	fits := func(s string) bool { return textWidth(s, size, bold) <= width }
	pre, suf := sharedEnds(names)
	out := make([]string, len(names))
	seen := map[string]int{}
	for i, s := range names {
		out[i] = fitAround(s, pre[i], suf[i], fits)
		if out[i] == "" {
			out[i] = fitText(s, size, bold, width)
		}
		seen[out[i]]++
	}
	// Two names can still read alike in a contrived case; then the
	// middle cut, which keeps both ends, gets a chance.
	for i, s := range names {
		if seen[out[i]] > 1 {
			out[i] = fitText(s, size, bold, width)
		}
	}
	return out
}

// sharedEnds returns, for every name, the longest prefix and the
// longest suffix (in runes) it shares with another name. In sorted
// order the longest common prefix of a name with any other is the one
// with a neighbour, so this takes O(n log n) comparisons, not n².
func sharedEnds(names []string) (pre, suf []int) {
	pre, suf = make([]int, len(names)), make([]int, len(names))
	rs := make([][]rune, len(names))
	rev := make([][]rune, len(names))
	for i, s := range names {
		rs[i] = []rune(s)
		rev[i] = slices.Clone(rs[i])
		slices.Reverse(rev[i])
	}
	neighbours(rs, pre)
	neighbours(rev, suf)
	return pre, suf
}

// neighbours sets best[i] to the longest common prefix of rs[i] with any
// other rs[j].
func neighbours(rs [][]rune, best []int) {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return slices.Compare(rs[a], rs[b]) })
	for k := 1; k < len(idx); k++ {
		a, b := idx[k-1], idx[k]
		n := commonPrefix(rs[a], rs[b])
		best[a], best[b] = max(best[a], n), max(best[b], n)
	}
}

func commonPrefix(a, b []rune) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// fitAround shortens s, which shares pre runes at its start and suf at
// its end with other names, keeping its distinguishing parts whole: the
// parts widened to whole words if that fits, else as they are, else (a
// name whose distinguishing part is itself too wide) "" for the caller
// to cut in the middle.
func fitAround(s string, pre, suf int, fits func(string) bool) string {
	if fits(s) {
		return s
	}
	r := []rune(s)
	narrow := distinct(r, pre, suf)
	wide := make([]span, len(narrow))
	for i, sp := range narrow {
		wide[i] = words(r, sp)
	}
	for _, spans := range [][]span{merge(wide), narrow} {
		if l, ok := fillAround(r, spans, fits); ok {
			return l
		}
	}
	return ""
}

// span is the runes [a, b) of a name.
type span struct{ a, b int }

// distinct is what tells a name r from the others: after the prefix and
// before the suffix it shares with them. When those overlap (it shares
// its start with one name and its end with another, as
// replica-alpha.dc-one does with replica-alpha.dc-two and
// replica-beta.dc-one), two places tell it apart: the rune before the
// shared suffix and the rune after the shared prefix.
func distinct(r []rune, pre, suf int) []span {
	a, b := min(pre, len(r)), max(len(r)-suf, 0)
	if a < b {
		return []span{{a, b}}
	}
	last := len(r) - 1
	d1, d2 := max(min(b-1, last), 0), max(min(a, last), 0)
	if d1 >= d2 {
		return []span{{d2, d1 + 1}}
	}
	return []span{{d1, d1 + 1}, {d2, d2 + 1}}
}

// words widens sp to the words (letters and digits) it cuts into: the
// "1" that tells kv-node-10 from kv-node-30 reads as "10".
func words(r []rune, sp span) span {
	word := func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }
	for sp.a > 0 && word(r[sp.a-1]) && word(r[sp.a]) {
		sp.a--
	}
	for sp.b < len(r) && word(r[sp.b]) && word(r[sp.b-1]) {
		sp.b++
	}
	return sp
}

// merge joins sorted spans that overlap or touch.
func merge(spans []span) []span {
	out := []span{spans[0]}
	for _, sp := range spans[1:] {
		if last := &out[len(out)-1]; sp.a <= last.b {
			last.b = max(last.b, sp.b)
		} else {
			out = append(out, sp)
		}
	}
	return out
}

// fillAround keeps the spans of r and as much of its head (before the
// first) and its tail (after the last) as fits, a rune of each in turn,
// with an ellipsis wherever text is left out. ok is false when the
// spans do not fit on their own.
func fillAround(r []rune, spans []span, fits func(string) bool) (string, bool) {
	first, last := spans[0].a, spans[len(spans)-1].b
	label := func(h, t int) string {
		var sb strings.Builder
		sb.WriteString(string(r[:h]))
		end := h
		for _, sp := range spans {
			if sp.a > end {
				sb.WriteString("…")
			}
			sb.WriteString(string(r[sp.a:sp.b]))
			end = sp.b
		}
		if t < len(r)-last {
			sb.WriteString("…")
		}
		sb.WriteString(string(r[len(r)-t:]))
		return sb.String()
	}
	h, t := 0, 0
	if !fits(label(h, t)) {
		return "", false
	}
	for {
		grewH := h < first && fits(label(h+1, t))
		if grewH {
			h++
		}
		grewT := t < len(r)-last && fits(label(h, t+1))
		if grewT {
			t++
		}
		if !grewH && !grewT {
			return label(h, t), true
		}
	}
}
