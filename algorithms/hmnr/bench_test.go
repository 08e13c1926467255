package hmnr

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
)

func BenchmarkReplayHMNR100K(b *testing.B) { protocoltest.BenchReplay(b, newHMNR, 100_000) }

func BenchmarkReplayHMNR1M(b *testing.B) { protocoltest.BenchReplay(b, newHMNR, 1_000_000) }
