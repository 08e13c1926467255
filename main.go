// Command ckpt replays execution traces through the Manivannan–Singhal and
// Peterson–Kearns checkpointing and rollback-recovery algorithms and
// verifies every recovery with an independent consistency checker.
package main

import (
	"os"

	"github.com/ckpt-dev/ckpt/cmd"
)

func main() {
	cmd.CleanupOnSignal()
	os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
