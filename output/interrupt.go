package output

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// pending holds the temporary files Write has open, so that an
// interrupt can remove them: the atomic write keeps the final name whole,
// but a half-written temporary file of a long run (gigabytes from gen or
// replay -o) would otherwise stay behind, hidden by its leading dot.
var pending = struct {
	sync.Mutex
	files map[string]struct{}
}{files: map[string]struct{}{}}

// createTracked creates a temporary file as os.CreateTemp does and
// records it for removePending. Both happen under the lock the signal
// handler takes, so an interrupt between creating the file and recording
// it cannot leave it behind.
func createTracked(dir, pattern string) (*os.File, error) {
	pending.Lock()
	defer pending.Unlock()
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		pending.files[f.Name()] = struct{}{}
	}
	return f, err
}

func untrackTemp(name string) {
	pending.Lock()
	delete(pending.files, name)
	pending.Unlock()
}

// removePending removes every temporary file still open for writing and
// says how many there were.
func removePending() int {
	pending.Lock()
	defer pending.Unlock()
	n := len(pending.files)
	for name := range pending.files {
		os.Remove(name)
	}
	clear(pending.files)
	return n
}

// CleanupOnSignal makes SIGINT, SIGTERM and SIGHUP (a closed terminal,
// an ssh session gone) remove the temporary files of outputs being
// written, then exit 130, 143 or 129 (128 + the signal, as shells report
// it). main installs it.
func CleanupOnSignal() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-ch
		if f := takeTrap(); f != nil {
			f(s) // the command stops cleanly; a second signal exits at once
			s = <-ch
		}
		msg := "stopped"
		if removePending() > 0 {
			msg += "; unfinished output files removed"
		}
		fmt.Fprintf(os.Stderr, "ckpt: %s: %s\n", s, msg)
		os.Exit(128 + int(s.(syscall.Signal)))
	}()
}

// trap is Trap's handler.
var trap struct {
	sync.Mutex
	f func(os.Signal)
}

// Trap hands the first SIGINT, SIGTERM or SIGHUP to ctx, which it cancels,
// instead of exiting, until stop is called; stop returns the signal that
// came (nil: none). A command that can stop cleanly (explore writes what
// it found so far) watches ctx and exits 128 + the signal itself. A
// second signal exits as usual.
func Trap() (ctx context.Context, stop func() os.Signal) {
	ctx, cancel := context.WithCancelCause(context.Background())
	trap.Lock()
	trap.f = func(s os.Signal) { cancel(signalCause{s}) }
	trap.Unlock()
	return ctx, func() os.Signal {
		takeTrap()
		var sc signalCause
		if errors.As(context.Cause(ctx), &sc) {
			return sc.Signal
		}
		return nil
	}
}

// signalCause is a signal as a context's cause.
type signalCause struct{ os.Signal }

func (e signalCause) Error() string { return e.String() }

func takeTrap() func(os.Signal) {
	trap.Lock()
	defer trap.Unlock()
	f := trap.f
	trap.f = nil
	return f
}
