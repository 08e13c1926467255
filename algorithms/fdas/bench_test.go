package fdas

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
)

func BenchmarkReplayFDAS100K(b *testing.B) { protocoltest.BenchReplay(b, newFDAS, 100_000) }

func BenchmarkReplayFDAS1M(b *testing.B) { protocoltest.BenchReplay(b, newFDAS, 1_000_000) }
