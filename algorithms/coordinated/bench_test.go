package coordinated

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
)

func BenchmarkReplayCoordinated100K(b *testing.B) {
	protocoltest.BenchReplay(b, newCoordinated, 100_000)
}

func BenchmarkReplayCoordinated1M(b *testing.B) {
	protocoltest.BenchReplay(b, newCoordinated, 1_000_000)
}
