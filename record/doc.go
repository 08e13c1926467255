// Package record records a running system for ckpt: each process
// writes its own events, and Merge turns the recordings of one execution
// into an execution trace (ckpt/trace@1) and, when the processes ran a
// recovery protocol, a run (ckpt/run@1) that `ckpt check` judges.
//
// As with GoVector, three calls record a process's messages:
//
//	r, err := record.Open("P1", "rec/P1.jsonl", record.Options{})
//	wire, err := r.Send("P2", payload)    // transmit wire, not payload
//	payload, err := r.Recv(wire)          // on the receiving side
//
// Internal, Checkpoint (a timer tick) and Fail complete a trace. A
// process that runs a protocol records its actions too (Options.Processes
// and Algorithm set; protocol.go): CheckpointTaken, Skipped, Log, Discard,
// Hold, Unhold, Restart, Rollback, ControlSend, ControlRecv, End and
// Unconsumed. examples/bank records MS that way.
//
// # Recordings
//
// A recording is JSON Lines, one file per process: a header line, then
// one event per line, with a run event's keys (docs/formats.md) plus
// n (the event's number in its process), ns (its clock, Unix
// nanoseconds), tx (the transmission a receipt names) and failures
// named as "the N-th failure of P" (line.go). Wire bytes carry the
// message id and the transmission (wire.go); a message id is the sender
// and the op that sends it (MsgID), so a process that re-executes
// deterministically re-sends the same message. Merging needs nothing else: the order comes from each
// process's own order and from every receipt naming its send, never from
// comparing clocks across machines (merge.go; docs/record.md).
//
// # Buffering and crashes
//
// A recorder holds at most Options.Buffer bytes (64 KiB) before it
// writes them; Flush and Close write everything, so a clean stop loses
// nothing. A crash of the process loses what was recorded since the last
// write: every Send and ControlSend writes its event (and all before it)
// before it returns the wire bytes, so the loss is a tail of local
// events — receipts, checkpoints, internal ops since the last send — and
// no surviving process holds a message whose send is missing. Open drops
// a line a crash cut short. Sync also commits the file to stable storage
// (fsync) against a machine crash. A process that needs the recording to
// agree exactly with its own stable storage keeps Size as a commit point
// and truncates the recording to it before Open after a crash (the bank
// example does). Every method is safe for concurrent use.
//
// # Overhead
//
// An event costs tenths of a microsecond, a Send into a file some
// microseconds (its write system call): docs/record.md gives the
// figures of bench_test.go's benchmarks and how they were taken.
package record
