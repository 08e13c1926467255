package cmd

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// gcPercentNow reads the collector's GOGC.
func gcPercentNow() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// Small inputs run at smallGCPercent, and the first big one (a big file,
// or stdin, whose size is unknown) switches to gcPercent for good; a GOGC
// in the environment is left alone.
func TestGCPace(t *testing.T) {
	defer debug.SetGCPercent(gcPercentNow())
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small.json"), filepath.Join(dir, "big.json")
	if err := os.WriteFile(small, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(bigDocument + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	ios := &IO{mem: &memCap{}}

	old, had := os.LookupEnv("GOGC")
	defer func() {
		if had {
			os.Setenv("GOGC", old)
		} else {
			os.Unsetenv("GOGC")
		}
	}()
	os.Unsetenv("GOGC")
	initGCPace()
	steps := []struct {
		do   func()
		want int
	}{
		{func() {}, smallGCPercent},
		{func() { ios.checkDecode(small) }, smallGCPercent},
		{func() { ios.checkDecode(big) }, gcPercent},
		{func() { ios.checkDecode(small) }, gcPercent},
	}
	for i, s := range steps {
		s.do()
		if got := gcPercentNow(); got != s.want {
			t.Errorf("step %d: GOGC %d, want %d", i, got, s.want)
		}
	}
	initGCPace()
	paceFor(small) // import's logs
	if got := gcPercentNow(); got != smallGCPercent {
		t.Errorf("small log: GOGC %d, want %d", got, smallGCPercent)
	}
	paceFor(big)
	if got := gcPercentNow(); got != gcPercent {
		t.Errorf("big log: GOGC %d, want %d", got, gcPercent)
	}
	// A small trace whose replay is big (PK's vectors at many
	// processes) is paced as a big input; a small replay is not.
	for _, tc := range []struct {
		s    traceSizes
		want int
	}{
		{traceSizes{events: 1000, procs: 4, msgs: 300, sends: 300, recvs: 300, busy: 4}, smallGCPercent},
		{traceSizes{events: 1000, procs: 4096, msgs: 300, sends: 300, recvs: 300, busy: 4096}, gcPercent},
	} {
		initGCPace()
		ios.checkReplaySized("t.json", func() traceSizes { return tc.s }, []string{"pk"}, replayed)
		if got := gcPercentNow(); got != tc.want {
			t.Errorf("replay of %d processes: GOGC %d, want %d", tc.s.procs, got, tc.want)
		}
	}
	initGCPace()
	ios.checkDecode(filepath.Join(dir, "missing.json")) // unknown size
	if got := gcPercentNow(); got != gcPercent {
		t.Errorf("unknown size: GOGC %d, want %d", got, gcPercent)
	}

	os.Setenv("GOGC", "77")
	debug.SetGCPercent(77)
	initGCPace()
	bigInput()
	if got := gcPercentNow(); got != 77 {
		t.Errorf("with GOGC=77 set: GOGC %d", got)
	}
}
