package diagram

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

var screenshot = flag.String("screenshot", "", "also copy the browser test's PNG to this path (a CI artifact)")

// browser returns a Chromium-family browser on PATH, or "".
func browser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// headless runs the browser on url with extra flags and returns stdout:
// headless, no sandbox (CI containers), no GPU, nothing that talks to
// the network, a fresh profile.
func headless(t testing.TB, bin, url string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--user-data-dir=" + t.TempDir(), "--window-size=1400,900"}
	args = append(append(args, extra...), url)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, errb.Bytes())
	}
	return out.Bytes()
}

// writePage writes the page of panels into a temporary file and returns
// its URL.
func writePage(t testing.TB, panels []Panel) string {
	t.Helper()
	page := filepath.Join(t.TempDir(), "diagram.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := HTMLPanels(f, panels, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return "file://" + page
}

var attrRE = regexp.MustCompile(`data-([a-z-]+)="([^"]*)"`)

// elementAttrs returns the data-* attributes of the element with id in
// dom, or nil when there is none.
func elementAttrs(dom, id string) map[string]string {
	m := regexp.MustCompile(`<div id="` + id + `"[^>]*>`).FindString(dom)
	if m == "" {
		return nil
	}
	out := map[string]string{}
	for _, a := range attrRE.FindAllStringSubmatch(m, -1) {
		out[a[1]] = strings.ReplaceAll(a[2], "&amp;", "&")
	}
	return out
}

// selftest loads url#hash, lets the page test itself (selftest.js) and
// returns its results and the DOM. Every result must be "ok"; want names
// results that must be there.
func selftest(t *testing.T, bin, url, hash string, want ...string) (map[string]string, string) {
	t.Helper()
	res, dom := loadSelftest(t, bin, url, hash)
	for k, v := range res {
		if strings.HasPrefix(v, "broken") {
			t.Errorf("%s: %s", k, v)
		}
	}
	for _, k := range want {
		if res[k] != "ok" {
			t.Errorf("self-test %s: %q, want ok", k, res[k])
		}
	}
	return res, dom
}

// loadSelftest loads url#hash and returns the self-test's results and
// the DOM, whatever the results.
func loadSelftest(t *testing.T, bin, url, hash string) (map[string]string, string) {
	t.Helper()
	dom := string(headless(t, bin, url+"#"+hash, "--dump-dom"))
	if strings.Contains(dom, `id="ckpt-error"`) {
		m := regexp.MustCompile(`id="ckpt-error"[^>]*>([^<]*)`).FindStringSubmatch(dom)
		t.Fatalf("the page's script failed: %v", m)
	}
	res := elementAttrs(dom, "ckpt-selftest")
	if res == nil || elementAttrs(dom, "ckpt-ready") == nil {
		t.Fatalf("the page did not get ready or did not test itself (%.300s)", dom)
	}
	return res, dom
}

// readingChecks are the self-test's checks that every page must pass.
var readingChecks = []string{"fits-window", "lanes", "no-overlap", "font", "overview", "hover", "pan", "overview-jump",
	"zoom", "labels-zoomed", "fit", "axis", "collapse", "hide-lane", "failure-nav", "first-view"}

// chordNames are the processes of ShiViz's chord log: five lanes differ
// only in their last digits, which issue 18 found hidden.
var chordNames = []string{"client-testGetEveryNSeconds", "0001", "front-end", "kv-node-10", "kv-node-30", "kv-node-40", "kv-node-60", "kv-node-70"}

// chordLike is a generated 8-process run with two failures under chord's
// process names.
func chordLike(t testing.TB) *trace.Trace {
	return namedTrace(t, "chord-like.json", chordNames, 1300, 2, 7)
}

// namedTrace is a generated trace of events ops and failures failures
// whose processes are called names.
func namedTrace(t testing.TB, file string, names []string, events, failures int, seed uint64) *trace.Trace {
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.Failures, cfg.Seed = len(names), events, failures, seed
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = file
	tr.Processes = append([]string(nil), names...)
	return tr
}

// TestBrowser opens pages in a real headless browser and checks, with
// the page's self-test, that a person can read them: lane names whole,
// distinct and never covered (also after a pan), no overlapping labels,
// no text under 12 px, the overview strip with every failure, deep links
// landing on their event, search finding a message, violations lighting
// up, the comparison of MS and PK, and a 10^5-event run. It checks
// function only: how fast a page opens is BenchmarkBrowserOpen's. It
// skips without a browser (CI installs one: scripts/ci-browser.sh).
func TestBrowser(t *testing.T) {
	bin := browser()
	if bin == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: run scripts/ci-browser.sh (apt-get install chromium) to run the real-browser test")
	}
	if testing.Short() {
		t.Skip("real-browser test skipped in -short mode")
	}
	t.Run("chord-like", func(t *testing.T) { browseChordLike(t, bin) })
	t.Run("long-names", func(t *testing.T) { browseLongNames(t, bin) })
	t.Run("violations", func(t *testing.T) {
		run, rep := replayed(t, readExample(t, "forced.json"), "ms:no-log")
		if rep.Valid {
			t.Fatal("the no-log mutant passed: the page would have no violation to click")
		}
		res, dom := selftest(t, bin, writePage(t, []Panel{{run, rep}}), "selftest", readingChecks...)
		nviol := 0
		for _, p := range rep.Properties {
			nviol += len(p.Violations)
		}
		// The page's script holds the markup too: count the written list.
		if n := strings.Count(dom, `<li class="violation" data-panel="0"`); n != nviol || !strings.Contains(dom, `<div class="because">because `) {
			t.Errorf("the page lists %d violations, want %d, each with its because", n, nviol)
		}
		if n, _ := strconv.Atoi(res["highlighted"]); n == 0 {
			t.Errorf("clicking a violation highlighted nothing (%q)", res["highlighted"])
		}
		if res["unhighlighted"] != "0" {
			t.Errorf("clicking it again left %s highlighted", res["unhighlighted"])
		}
	})
	t.Run("failure-free", func(t *testing.T) {
		run, rep := replayed(t, readExample(t, "failure-free.json"), "ms")
		_, dom := selftest(t, bin, writePage(t, []Panel{{run, rep}}), "selftest", readingChecks...)
		if strings.Contains(dom, `id="fail-next"`) {
			t.Error("a run without failures offers failure navigation")
		}
		if !strings.Contains(dom, `id="violations">No violations`) || strings.Contains(dom, ">none<") {
			t.Error(`a valid run does not say "No violations"`)
		}
	})
	t.Run("compare", func(t *testing.T) {
		tr := readExample(t, "orphan.json")
		ms, msRep := replayed(t, tr, "ms")
		pk, pkRep := replayed(t, tr, "pk")
		_, dom := selftest(t, bin, writePage(t, []Panel{{ms, msRep}, {pk, pkRep}}), "pk:seq=12&selftest", append(append([]string(nil), readingChecks[:len(readingChecks)-1]...), "deeplink")...)
		if n := strings.Count(dom, `<div class="panel" data-panel=`); n != 2 {
			t.Errorf("%d panels, want MS and PK", n)
		}
		for _, want := range []string{`id="compare"`, "<th>checkpoints basic / forced / recovery</th>", "failure 1: P0 at t=3.5s", "<td>back to ckpt ", "<th>ops run a different number of times (outlined)</th>"} {
			if !strings.Contains(dom, want) {
				t.Errorf("comparison lacks %q", want)
			}
		}
	})
	// A process named like an Object member ("constructor") once made
	// the comparison table throw, and the page never initialised; and
	// the details show a '<' of a label as written, not as the \u003c
	// the page carries it as (the deep link ends on P0's fail).
	t.Run("object-member-name", func(t *testing.T) {
		tr := readExample(t, "orphan.json")
		tr.Processes[1] = "constructor"
		for i := range tr.Events {
			if tr.Events[i].Kind == trace.Fail {
				tr.Labels[tr.Events[i].Label] = `sn<1 \u003c`
			}
		}
		ms, msRep := replayed(t, tr, "ms")
		pk, pkRep := replayed(t, tr, "pk")
		_, dom := selftest(t, bin, writePage(t, []Panel{{ms, msRep}, {pk, pkRep}}), "pk:seq=12&selftest", append(append([]string(nil), readingChecks[:len(readingChecks)-1]...), "deeplink")...)
		if !strings.Contains(dom, "failure 1: P0 at t=3.5s") || !strings.Contains(dom, "<th>constructor</th>") {
			t.Error("the comparison lacks the process named constructor")
		}
		if !strings.Contains(dom, `sn&lt;1 \\u003c`) {
			t.Error("the details do not show the fail's label as written")
		}
	})
	t.Run("unchecked", func(t *testing.T) {
		run, _ := replayed(t, readExample(t, "forced.json"), "ms")
		if _, dom := selftest(t, bin, writePage(t, []Panel{{run, nil}}), "selftest"); !strings.Contains(dom, `id="violations">Not checked`) {
			t.Error("an unchecked run's page does not say so")
		}
	})
	t.Run("large", func(t *testing.T) { browseLarge(t, bin) })
	t.Run("mutant", func(t *testing.T) { browseMutant(t, bin) })
}

// browseMutant breaks a page on purpose — the plot drawn over the lane
// names, checkpoint numbers at 10 px — and requires the self-test to
// say so: a check that cannot fail is worthless.
func browseMutant(t *testing.T, bin string) {
	run, rep := replayed(t, readExample(t, "forced.json"), "ms")
	var b bytes.Buffer
	if err := htmlOf(&b, run, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, r := range [][2]string{
		{`V.plot.style.left = headW + "px";`, `V.plot.style.left = "0px";`},
		{"background: #fff; z-index: 5;", "background: #fff;"},
		{".sn { font-size: 12px;", ".sn { font-size: 10px;"},
	} {
		if !strings.Contains(page, r[0]) {
			t.Fatalf("the mutant cannot find %q in the page", r[0])
		}
		page = strings.ReplaceAll(page, r[0], r[1])
	}
	path := filepath.Join(t.TempDir(), "mutant.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ := loadSelftest(t, bin, "file://"+path, "selftest")
	for _, k := range []string{"lanes", "font"} {
		if !strings.HasPrefix(res[k], "broken") {
			t.Errorf("the self-test's %s check passed a page broken on purpose: %q", k, res[k])
		}
		t.Logf("%s: %.120s", k, res[k])
	}
}

func browseChordLike(t *testing.T, bin string) {
	run, rep := replayed(t, chordLike(t), "ms")
	url := writePage(t, []Panel{{run, rep}})
	fails := 0
	rollback := -1
	for i := range run.Events {
		switch run.Events[i].Kind {
		case trace.Fail:
			fails++
		case trace.Rollback:
			if rollback < 0 {
				rollback = i
			}
		}
	}
	if rollback < 0 {
		t.Fatal("the chord-like run has no rollback to link to")
	}
	msg := run.Msgs[len(run.Msgs)/2]
	// A deep link's first view is its event, not the first failure.
	checks := append(append([]string(nil), readingChecks[:len(readingChecks)-1]...), "deeplink", "search")
	res, _ := selftest(t, bin, url, fmt.Sprintf("seq=%d&selftest&full&search=%s", rollback, msg), checks...)
	if res["overview-failures"] != strconv.Itoa(fails) {
		t.Errorf("overview marks %s failures, the run has %d", res["overview-failures"], fails)
	}
	browseSizedFirst(t, bin, url)

	shot := filepath.Join(t.TempDir(), "diagram.png")
	headless(t, bin, fmt.Sprintf("%s#seq=%d", url, rollback), "--hide-scrollbars", "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 10_000 {
		t.Fatalf("screenshot is not a plausible PNG (%d bytes)", len(png))
	}
	if *screenshot != "" {
		if err := os.WriteFile(*screenshot, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// longNames are four hosts whose names differ only in their number,
// which a cut in the middle takes out (issue 18).
var longNames = []string{
	"a-very-long-process-name-number-01-of-the-cluster.example.org",
	"a-very-long-process-name-number-02-of-the-cluster.example.org",
	"a-very-long-process-name-number-03-of-the-cluster.example.org",
	"a-very-long-process-name-number-04-of-the-cluster.example.org",
}

// browseLongNames: lanes whose names are too long for the column are
// shortened around what tells them apart: every visible lane label is
// different from every other, shows its host's number, and has the full
// name as its tooltip.
func browseLongNames(t *testing.T, bin string) {
	run, rep := replayed(t, namedTrace(t, "long-names.json", longNames, 200, 1, 5), "ms")
	url := writePage(t, []Panel{{run, rep}})
	_, dom := selftest(t, bin, url, "selftest", append(readingChecks, "lanes-distinct")...)
	heads := regexp.MustCompile(`<div class="lane-head" data-p="([^"]*)" title="[^"]*"[^>]*><span class="name">([^<]*)</span>`).FindAllStringSubmatch(dom, -1)
	if len(heads) != len(longNames) {
		t.Fatalf("%d lane heads in the page, want %d", len(heads), len(longNames))
	}
	seen := map[string]bool{}
	for i, h := range heads {
		name, shown := h[1], h[2]
		if seen[shown] {
			t.Errorf("two lanes read %q", shown)
		}
		seen[shown] = true
		if num := fmt.Sprintf("%02d", i+1); name != longNames[i] || !strings.Contains(shown, num) {
			t.Errorf("lane %s shown as %q, without its number %s", name, shown, num)
		}
		t.Logf("%s: %s", name, shown)
	}
	// The same page with the names cut in the middle, as they were:
	// the self-test must see that the lanes read alike.
	page, err := os.ReadFile(strings.TrimPrefix(url, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	const fit = "var labels = fitLanes(P.procs, HEAD_FONT, headW - 16);"
	if !bytes.Contains(page, []byte(fit)) {
		t.Fatalf("the mutant cannot find %q in the page", fit)
	}
	page = bytes.ReplaceAll(page, []byte(fit), []byte("var labels = P.procs.map(function (s) { return fitMiddle(s, HEAD_FONT, headW - 16); });"))
	path := filepath.Join(t.TempDir(), "middle-cut.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ := loadSelftest(t, bin, "file://"+path, "selftest")
	if !strings.HasPrefix(res["lanes-distinct"], "broken") {
		t.Errorf("the self-test passed lanes cut in the middle, which read alike: %q", res["lanes-distinct"])
	}
}

// largePage writes the page of a run of more than 10^5 events.
func largePage(t testing.TB) (url string, events int) {
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.Failures, cfg.Seed = 8, 95_000, 20, 3
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	run, rep := replayed(t, tr, "ms")
	if len(run.Events) < 100_000 {
		t.Fatalf("the run has %d events, want at least 10^5", len(run.Events))
	}
	return writePage(t, []Panel{{run, rep}}), len(run.Events)
}

// browseLarge opens a run of more than 10^5 events: it must get ready
// and pass every reading check.
func browseLarge(t *testing.T, bin string) {
	url, _ := largePage(t)
	selftest(t, bin, url, "selftest", readingChecks...)
}

// browseSizedFirst puts back the bug of issue 31 — the lanes sized
// while the overview strip was still an undrawn canvas hundreds of
// pixels high, so that they kept their 300 px floor until the window
// was resized — and requires the self-test to see it.
func browseSizedFirst(t *testing.T, bin, url string) {
	page, err := os.ReadFile(strings.TrimPrefix(url, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	const order = "  if (OV.box) { overviewDraw(); }\n  sizes();"
	if !bytes.Contains(page, []byte(order)) {
		t.Fatalf("the mutant cannot find %q in the page", order)
	}
	page = bytes.Replace(page, []byte(order), []byte("  sizes();\n  if (OV.box) { overviewDraw(); }"), 1)
	path := filepath.Join(t.TempDir(), "sized-first.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ := loadSelftest(t, bin, "file://"+path, "selftest")
	if !strings.HasPrefix(res["fits-window"], "broken") {
		t.Errorf("the self-test passed lanes sized before the overview was drawn: %q", res["fits-window"])
	}
	t.Logf("sized first: %s", res["fits-window"])
}

// BenchmarkBrowserOpen opens a run of more than 10^5 events in a
// headless browser and reports how long the page took from navigation
// to ready, as the page measures it (load-ms; it was under 3 s on an
// idle 2-core machine), beside the browser's whole start-to-dump time.
func BenchmarkBrowserOpen(b *testing.B) {
	bin := browser()
	if bin == "" {
		b.Skip("no chromium, chromium-browser or google-chrome on PATH: run scripts/ci-browser.sh")
	}
	url, events := largePage(b)
	b.ResetTimer()
	total := 0
	for range b.N {
		dom := string(headless(b, bin, url, "--dump-dom"))
		ms, err := strconv.Atoi(elementAttrs(dom, "ckpt-ready")["load-ms"])
		if err != nil {
			b.Fatalf("the page did not get ready (%.300s)", dom)
		}
		total += ms
	}
	b.ReportMetric(float64(total)/float64(b.N), "load-ms")
	b.ReportMetric(float64(events), "events")
}

// TestHTMLSelfContained: the page loads nothing: no src or href
// attributes and no URL but the SVG namespace name.
func TestHTMLSelfContained(t *testing.T) {
	run, rep := replayed(t, readExample(t, "orphan.json"), "pk")
	var h bytes.Buffer
	if err := htmlOf(&h, run, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	page := h.String()
	if regexp.MustCompile(`\s(src|href|xlink:href)=`).MatchString(page) {
		t.Error("page references an external resource")
	}
	urls := regexp.MustCompile(`[a-z]+://[^"' )]*`).FindAllString(page, -1)
	for _, u := range urls {
		if u != "http://www.w3.org/2000/svg" {
			t.Errorf("page contains URL %s", u)
		}
	}
	for _, want := range []string{"<!DOCTYPE html>", `<script type="application/json" id="ckpt-data">`, "<script>", `id="violations-box"`, `id="details"`, "orphan-free"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	var again bytes.Buffer
	if err := htmlOf(&again, run, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(h.Bytes(), again.Bytes()) {
		t.Error("two renderings of the same page differ")
	}
}
