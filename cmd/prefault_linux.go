package cmd

import (
	"syscall"
	"unsafe"
)

// canPopulate says populate can fault pages in here.
const canPopulate = true

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): fault the pages
// in writable, as a write would, without writing.
const madvPopulateWrite = 23

// populate faults in the pages wholly inside b, and reports whether the
// kernel did.
func populate(b []byte) bool {
	const page = 4096
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (page - start%page) % page
	hi := uintptr(len(b)) - (start+uintptr(len(b)))%page
	if lo >= hi || hi > uintptr(len(b)) {
		return true // no whole page
	}
	return syscall.Madvise(b[lo:hi], madvPopulateWrite) == nil
}
