package explore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/output"
)

// manifestName is the file in a witness directory that lists what ckpt
// wrote there. A run removes only what it lists: a file named like a
// witness may be the user's, the input being explored (a witness of an
// earlier run), or another shard's witness in a shared --out.
const manifestName = ".ckpt-witnesses"

// manifestHead opens the manifest, saying what it is to a user who
// finds it.
const manifestHead = "# ckpt explore: the witnesses it wrote here (trace, shard, SHA-256, file); a later run of the same\n" +
	"# trace and shard replaces or removes them if unchanged, and removes the directory if ckpt created it (\"created\").\n"

// manifest is what ckpt wrote in a witness directory.
type manifest struct {
	// found says whether the directory has a manifest; created, whether
	// ckpt created the directory.
	found, created bool
	entries        []entry
}

// entry is a witness ckpt wrote: the exploration that wrote it (the
// digest of the trace explored, Scope.Trace, and the shard; explore
// merge writes as 1/1), its content's SHA-256 and its name in the
// directory.
type entry struct{ trace, shard, sum, name string }

// readManifest reads dir's manifest. Lines it does not understand (an
// edited file, or one of a release that did not list the trace) are
// ignored: they only keep files from being removed. A manifest that is
// not a regular file (a named pipe, which would block the read, or a
// link) is refused.
func readManifest(dir string) (manifest, error) {
	path := filepath.Join(dir, manifestName)
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return manifest{}, fmt.Errorf("writing witnesses in %s: %s is not a regular file, which ckpt writes there; remove it", dir, path)
	}
	b, err := os.ReadFile(path)
	m := manifest{found: err == nil}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		switch {
		case len(f) == 1 && f[0] == "created":
			m.created = true
		case len(f) == 4 && filepath.Base(f[3]) == f[3]:
			m.entries = append(m.entries, entry{f[0], f[1], f[2], f[3]})
		}
	}
	return m, nil
}

// mayWrite reports whether ckpt may write the witness name at path:
// nothing is there, or a witness ckpt wrote (listed), unchanged, that
// is no input of this command. Anything else (the user's file, a link,
// a named pipe) is not ckpt's to replace or write through.
func (m manifest) mayWrite(path, name string) bool {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return true
	}
	return !output.IsInput(path) && slices.ContainsFunc(m.entries, func(e entry) bool { return e.name == name && unchanged(path, e.sum) })
}

// replace removes the witnesses the exploration own (trace and shard,
// an entry's first fields) wrote in an earlier run that it did not
// write again (mine), if each is still what it wrote and no input of
// this command, and lists what is now ckpt's in dir: mine and the
// witnesses other explorations (other shards, other traces) wrote,
// unchanged. With nothing left to
// list, tidy removes the manifest and dir if ckpt created it and
// nothing else is in it (the user's files, the report); until then the
// manifest remembers that ckpt created it.
func (m manifest) replace(dir string, own entry, mine []entry) (tidy func(), err error) {
	keep := mine
	for _, e := range m.entries {
		path := filepath.Join(dir, e.name)
		if slices.ContainsFunc(mine, func(n entry) bool { return n.name == e.name }) || !unchanged(path, e.sum) {
			continue
		}
		if e.trace == own.trace && e.shard == own.shard && !output.IsInput(path) {
			if err := os.Remove(path); err != nil {
				return nil, err
			}
			continue
		}
		keep = append(keep, e)
	}
	path := filepath.Join(dir, manifestName)
	tidy = func() {}
	if len(keep) == 0 && m.created {
		tidy = func() {
			if es, err := os.ReadDir(dir); err == nil && len(es) == 1 {
				os.Remove(path)
				os.Remove(dir)
			}
		}
	}
	if len(keep) == 0 && !m.created {
		if err := os.Remove(path); err != nil && m.found {
			return nil, err
		}
		return tidy, nil
	}
	var b strings.Builder
	b.WriteString(manifestHead)
	if m.created {
		b.WriteString("created\n")
	}
	for _, e := range keep {
		fmt.Fprintf(&b, "%s %s %s %s\n", e.trace, e.shard, e.sum, e.name)
	}
	return tidy, output.Write(path, nil, func(w io.Writer) error { _, err := io.WriteString(w, b.String()); return err })
}

// unchanged reports whether path is a regular file whose content has
// the SHA-256 sum: a witness as ckpt wrote it. It looks before it
// opens: opening a named pipe would block until a writer comes.
func unchanged(path, sum string) bool {
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	_, err = io.Copy(h, f)
	return err == nil && hex.EncodeToString(h.Sum(nil)) == sum
}
