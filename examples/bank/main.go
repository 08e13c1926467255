//go:build unix

// Command bank runs a small bank as separate OS processes on 127.0.0.1,
// each branch checkpointing and recovering with Manivannan–Singhal's
// algorithm (the same state machine ckpt replays, algorithms/ms), while
// the driver kills branches with SIGKILL and restarts them. Every branch
// records its execution with package record; the driver merges the
// recordings into a run ckpt can check:
//
//	go run ./examples/bank --procs 4 --crashes 3 --seed 1 -o /tmp/bank
//	go run . check /tmp/bank/run.json
//
// It prints the sum of all balances at the start and after recovery:
// money is conserved iff no transfer was lost or applied twice.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	json "github.com/goccy/go-json"
)

func main() {
	if env := os.Getenv("BANK_BRANCH"); env != "" {
		var cfg config
		must(json.Unmarshal([]byte(env), &cfg))
		must(runBranch(cfg))
		return
	}
	var o options
	flag.IntVar(&o.Procs, "procs", 4, "branches (OS processes)")
	flag.IntVar(&o.Crashes, "crashes", 3, "branches to kill (SIGKILL) at random moments")
	flag.IntVar(&o.Transfers, "transfers", 60, "transfers in the run")
	flag.Uint64Var(&o.Seed, "seed", 1, "seed of the programs and the crashes")
	flag.StringVar(&o.Out, "o", "bank-run", "output directory")
	flag.DurationVar(&o.Tick, "tick", 20*time.Millisecond, "period of each branch's checkpoint timer")
	flag.DurationVar(&o.Gap, "gap", 3*time.Millisecond, "pause between a branch's operations")
	flag.DurationVar(&o.Down, "down", 50*time.Millisecond, "how long a killed branch stays down")
	flag.DurationVar(&o.Timeout, "timeout", 60*time.Second, "stop the run after this long in any case")
	flag.BoolVar(&o.NoLog, "nolog", false, "test only: skip MS's message log, and crash P0 after the first receipt it should have logged")
	flag.Parse()
	if o.Procs < 2 || o.Transfers < 1 || o.Crashes < 0 {
		fmt.Fprintln(os.Stderr, "bank: need --procs ≥ 2, --transfers ≥ 1, --crashes ≥ 0")
		os.Exit(2)
	}
	out, err := drive(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bank:", err)
		os.Exit(2)
	}
	verdict := "conserved"
	if out.End != out.Start {
		verdict = fmt.Sprintf("NOT conserved: %+d", out.End-out.Start)
	}
	fmt.Printf("%d branches, %d crashes; money at the start %d, after recovery %d: %s\nbranches ended %v\nwrote %s/run.json and %s/trace.json\n",
		o.Procs, out.Crashes, out.Start, out.End, verdict, out.Ends, o.Out, o.Out)
	if out.End != out.Start {
		os.Exit(1)
	}
}
