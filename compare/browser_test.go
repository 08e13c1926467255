package compare

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var chartPNG = flag.String("chart-png", "", "also copy the browser test's PNG of the sweep chart to this path (a CI artifact)")

// browser returns a Chromium-family browser on PATH, or "".
func browser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// headless runs the browser on url with extra flags, in a fresh
// profile, and returns stdout.
func headless(t *testing.T, bin, url string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	args = append(append(args, extra...), url)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, errb.Bytes())
	}
	return out.Bytes()
}

// layoutCheck measures the rendered chart in the page and writes its
// verdict on <body>: every text inside the drawing and overlapping no
// other text, every series drawn with a visible line inside the plot,
// the legend beside the plot.
const layoutCheck = `<script>
(function () {
  var errs = [];
  var svg = document.querySelector('svg');
  var s = svg.getBoundingClientRect();
  var W = +svg.getAttribute('width'), H = +svg.getAttribute('height');
  function box(el) { var r = el.getBoundingClientRect(); return {x: r.left - s.left, y: r.top - s.top, w: r.width, h: r.height}; }
  var texts = [].slice.call(svg.querySelectorAll('text')).map(function (t) { var b = box(t); b.t = t.textContent; return b; });
  texts.forEach(function (b) {
    if (b.w <= 0 || b.h <= 0) errs.push('invisible text ' + b.t);
    if (b.x < 0 || b.y < 0 || b.x + b.w > W + 0.5 || b.y + b.h > H + 0.5) errs.push('text outside the drawing: ' + b.t);
  });
  for (var i = 0; i < texts.length; i++) for (var j = i + 1; j < texts.length; j++) {
    var a = texts[i], b = texts[j];
    var ox = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x), oy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
    if (ox > 1 && oy > 1) errs.push('texts overlap: "' + a.t + '" and "' + b.t + '"');
  }
  var plot = box(svg.querySelector('rect[fill="none"]'));
  var series = svg.querySelectorAll('g.series');
  series.forEach(function (g) {
    var lines = g.querySelectorAll('polyline'), len = 0;
    lines.forEach(function (l) { len += l.getTotalLength(); });
    if (len <= 0) errs.push('series ' + g.getAttribute('data-protocol') + ' has no visible line');
    var b = box(g);
    if (b.x < plot.x - 6 || b.y < plot.y - 6 || b.x + b.w > plot.x + plot.w + 6 || b.y + b.h > plot.y + plot.h + 6) errs.push('series ' + g.getAttribute('data-protocol') + ' leaves the plot');
  });
  var legend = box(document.getElementById('legend'));
  if (legend.x < plot.x + plot.w) errs.push('legend overlaps the plot');
  document.body.setAttribute('data-series', String(series.length));
  document.body.setAttribute('data-entries', String(svg.querySelectorAll('#legend .entry').length));
  document.body.setAttribute('data-chart', errs.length ? 'fail' : 'ok');
  document.body.setAttribute('data-errors', errs.join(' | '));
})();
</script>`

// TestChartInBrowser renders the sweep chart in a real headless browser:
// the page's script measures the layout (texts inside and apart, lines
// drawn inside the plot, legend beside it), and a screenshot of the SVG
// file itself must be a plausible PNG. Skips without Chromium.
func TestChartInBrowser(t *testing.T) {
	bin := browser()
	if bin == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: run scripts/ci-browser.sh (apt-get install chromium) to run the real-browser test")
	}
	if testing.Short() {
		t.Skip("real-browser test skipped in -short mode")
	}
	o := smallSweep()
	rows := runSweep(t, o)
	var svg bytes.Buffer
	if err := Chart(&svg, o, rows); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "chart.html")
	html := "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body style=\"margin:0\">" + svg.String() + layoutCheck + "</body></html>"
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(headless(t, bin, "file://"+page, "--dump-dom"))
	verdict := regexp.MustCompile(`data-chart="(\w+)"`).FindStringSubmatch(dom)
	if verdict == nil {
		t.Fatal("the layout check did not run")
	}
	if verdict[1] != "ok" {
		t.Errorf("layout: %s", regexp.MustCompile(`data-errors="([^"]*)"`).FindStringSubmatch(dom)[1])
	}
	n := len(Protocols)
	for _, want := range []string{`data-series="` + strconv.Itoa(n) + `"`, `data-entries="` + strconv.Itoa(n) + `"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("page lacks %s", want)
		}
	}

	file := filepath.Join(dir, "chart.svg")
	if err := os.WriteFile(file, svg.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "chart.png")
	headless(t, bin, "file://"+file, "--window-size=960,580", "--hide-scrollbars", "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 10_000 {
		t.Fatalf("screenshot is not a plausible PNG (%d bytes)", len(png))
	}
	if *chartPNG != "" {
		if err := os.WriteFile(*chartPNG, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
