package cmd

import (
	"syscall"
	"testing"
	"unsafe"

	"github.com/ckpt-dev/ckpt/trace"
)

const testPage = 4096

// pagesIn returns the page-aligned interior of b, the pages populate
// works on.
func pagesIn(b []byte) []byte {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((testPage - start%testPage) % testPage)
	hi := len(b) - int((start+uintptr(len(b)))%testPage)
	if lo >= hi {
		return nil
	}
	return b[lo:hi]
}

// residentPages counts the pages of b (page-aligned) that are in memory
// (mincore(2)): the pages' own state, whatever else the process holds.
func residentPages(t *testing.T, b []byte) int {
	vec := make([]byte, (len(b)+testPage-1)/testPage)
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		t.Skipf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// evict drops b's pages (page-aligned) so that the test starts from
// pages not yet in memory, as the engine's fresh reservation is; they
// read as zeros after, as they did before.
func evict(t *testing.T, b []byte) {
	if err := syscall.Madvise(b, syscall.MADV_DONTNEED); err != nil {
		t.Skipf("madvise: %v", err)
	}
	if n := residentPages(t, b); n != 0 {
		t.Skipf("%d pages stay resident after MADV_DONTNEED", n)
	}
}

// populate makes the pages resident without writing them: what the
// engine writes afterwards is all it finds there.
func TestPopulateFaultsPagesIn(t *testing.T) {
	b, err := syscall.Mmap(-1, 0, 64<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Munmap(b)
	evict(t, b)
	if !populate(b[1 : len(b)-1]) {
		t.Skip("the kernel refuses MADV_POPULATE_WRITE")
	}
	// The first and last pages are not wholly inside what was asked.
	if got, want := residentPages(t, b), len(b)/testPage-2; got != want {
		t.Fatalf("populating %d whole pages made %d resident", want, got)
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
	all := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(evs))), uintptr(cap(evs))*unsafe.Sizeof(trace.RunEvent{}))
	inner := pagesIn(all)
	evict(t, inner)
	pf := startPrefault()
	pf.ahead(evs, 0)
	pf.stop()
	window := prefaultWindow * int(unsafe.Sizeof(trace.RunEvent{})) / testPage
	if got := residentPages(t, inner); got < window-1 || got > window+1 {
		t.Fatalf("asked for a window of %d pages, %d became resident", window, got)
	}
	for i, c := range all {
		if c != 0 {
			t.Fatalf("byte %d is %d after the prefault", i, c)
		}
	}
}
