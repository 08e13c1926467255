package cmd

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/ckpt-dev/ckpt/trace"
)

// resident is the process's resident set in bytes (/proc/self/statm).
func resident(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip(err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// populate makes the pages resident without writing them: what the
// engine writes afterwards is all it finds there.
func TestPopulateFaultsPagesIn(t *testing.T) {
	const size = 64 << 20
	b := make([]byte, size)
	debug.FreeOSMemory() // no scavenging while measuring
	before := resident(t)
	if !populate(b) {
		t.Skip("the kernel refuses MADV_POPULATE_WRITE")
	}
	if grew := resident(t) - before; grew < size*3/4 {
		t.Fatalf("populating %d MB made %d MB resident", size>>20, grew>>20)
	}
	for i, c := range b {
		if c != 0 {
			t.Fatalf("byte %d is %d after populate", i, c)
		}
	}
}

// The prefault goroutine populates only a window ahead of what it is
// asked for, and leaves the events as they were.
func TestPrefaultWindow(t *testing.T) {
	evs := make([]trace.RunEvent, 0, 4*prefaultWindow)
	debug.FreeOSMemory()
	before := resident(t)
	pf := startPrefault()
	pf.ahead(evs, 0)
	pf.stop()
	grew := resident(t) - before
	window := int64(prefaultWindow) * int64(unsafe.Sizeof(evs[:1][0]))
	if grew < window*3/4 || grew > 2*window {
		t.Fatalf("asked for a window of %d MB, %d MB became resident", window>>20, grew>>20)
	}
}
