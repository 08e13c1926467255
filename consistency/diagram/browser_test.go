package diagram

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
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

// headless runs the browser on url with extra flags and returns stdout.
func headless(t *testing.T, bin, url string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--user-data-dir=" + t.TempDir()}
	args = append(append(args, extra...), url)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, errb.Bytes())
	}
	return out.Bytes()
}

// TestBrowser renders the HTML page of a violating run in a real headless
// browser and checks that the script ran without errors, built its
// interactive elements, and that hover, violation highlighting and zoom
// work (the page's self-test reports them in the DOM).
func TestBrowser(t *testing.T) {
	bin := browser()
	if bin == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: run scripts/ci-browser.sh (apt-get install chromium) to run the real-browser test")
	}
	if testing.Short() {
		t.Skip("real-browser test skipped in -short mode")
	}
	run, rep := replayed(t, readExample(t, "forced.json"), "ms:no-log")
	if rep.Valid {
		t.Fatal("the no-log mutant passed: the page would have no violation to click")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "diagram.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := HTML(f, run, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page

	dom := string(headless(t, bin, url+"#ckpt-selftest", "--dump-dom"))
	if strings.Contains(dom, `id="ckpt-error"`) {
		m := regexp.MustCompile(`id="ckpt-error"[^>]*>([^<]*)`).FindStringSubmatch(dom)
		t.Fatalf("the page's script failed: %v", m)
	}
	for _, want := range []string{
		`data-ckpt-ready="1"`, `id="ckpt-ready"`, `id="ckpt-toolbar"`,
		`data-ckpt-click="1"`, `data-ckpt-hover="1"`,
		`data-hover="ok"`, `data-zoom="ok"`, `data-unhighlighted="0"`, `data-next-failure="ok"`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM after the script lacks %s", want)
		}
	}
	if n := strings.Count(dom, `class="ckpt-zoom"`); n != 5 {
		t.Errorf("%d toolbar buttons, want 5", n)
	}
	hl := regexp.MustCompile(`data-highlighted="(\d+)"`).FindStringSubmatch(dom)
	if hl == nil || hl[1] == "0" {
		t.Errorf("clicking a violation highlighted nothing (%v)", hl)
	}

	shot := filepath.Join(dir, "diagram.png")
	headless(t, bin, url, "--window-size=1400,800", "--hide-scrollbars", "--screenshot="+shot)
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

// TestHTMLSelfContained: the page loads nothing: no src or href
// attributes and no URL but the SVG namespace name.
func TestHTMLSelfContained(t *testing.T) {
	run, rep := replayed(t, readExample(t, "orphan.json"), "pk")
	var h bytes.Buffer
	if err := HTML(&h, run, rep, Options{}); err != nil {
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
	for _, want := range []string{"<!DOCTYPE html>", "<svg ", "<script>", `id="violations"`, `id="details"`, "orphan-free"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	var again bytes.Buffer
	if err := HTML(&again, run, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(h.Bytes(), again.Bytes()) {
		t.Error("two renderings of the same page differ")
	}
}
