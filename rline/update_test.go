package rline

// Every test binary of the module takes -update (package golden), so
// that `go test ./... -update` runs here too; this package has no
// golden files of its own.
import _ "github.com/ckpt-dev/ckpt/internal/golden"
