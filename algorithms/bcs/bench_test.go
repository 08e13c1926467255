package bcs

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
)

func BenchmarkReplayBCS100K(b *testing.B) { protocoltest.BenchReplay(b, newBCS, 100_000) }

func BenchmarkReplayBCS1M(b *testing.B) { protocoltest.BenchReplay(b, newBCS, 1_000_000) }
