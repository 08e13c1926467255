package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// writeOutput writes what fill produces to path, or to w when path is ""
// or "-". A file is written atomically: into a temporary file in the same
// directory, synced, then renamed over path, so a reader never sees half a
// file and a failed write leaves any old file untouched.
func writeOutput(path string, w io.Writer, fill func(io.Writer) error) error {
	if path == "" || path == "-" {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := fill(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if isInput(path) {
		return invalidf("writing %s: it is an input of this command, which the output would replace; give another name", path)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("writing %s: it is a directory; give a file name", path)
	} else if err == nil && !st.Mode().IsRegular() {
		return writeSpecial(path, fill)
	}
	// A symbolic link keeps pointing where it did: the file it names is
	// replaced, not the link.
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		}
	}
	dir := filepath.Dir(path)
	tmp, err := createTracked(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %s", path, dirProblem(dir, err))
	}
	ok := false
	defer func() {
		untrackTemp(tmp.Name())
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := fill(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %s", path, osErrorText(linkError(err)))
	}
	ok = true
	return nil
}

// writeSpecial writes to a file that is no regular file — a device such
// as /dev/null or /dev/stdout, a named pipe — in place: renaming a
// temporary file over it would replace the device with a file (run as
// root, -o /dev/null would have broken /dev/null for the whole system),
// and such a file has nothing to keep whole.
func writeSpecial(path string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %s", path, osErrorText(unwrapPath(err)))
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := fill(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// dirProblem says why a file cannot be created in dir, in place of the
// raw error that names ckpt's temporary file.
func dirProblem(dir string, err error) string {
	st, serr := os.Stat(dir)
	switch {
	case serr != nil && errors.Is(serr, os.ErrNotExist):
		return "the directory " + dir + " does not exist"
	case serr == nil && !st.IsDir():
		return dir + " is not a directory"
	case errors.Is(err, os.ErrPermission):
		return "permission denied in the directory " + dir
	}
	return osErrorText(unwrapPath(err))
}

// linkError returns the error inside a *os.LinkError (rename), or err.
func linkError(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// traceWriteOptions decides how a trace or run is written to out: JSON
// Lines when out ends in .jsonl(.gz) or jsonl is set, gzip when it ends
// in .gz or gz is set. A flag that contradicts out's name is an error
// rather than a file whose name lies about its content (ckpt would read
// it, by content, but other tools would not): --gzip -o plain.json,
// --jsonl -o doc.json. Other names (t.bin) follow the flags.
func traceWriteOptions(out string, jsonl, gz bool) (trace.WriteOptions, error) {
	w := trace.WriteOptions{JSONL: jsonl, Gzip: gz}
	if out == "" || out == "-" {
		return w, nil
	}
	base := strings.TrimSuffix(out, ".gz")
	switch {
	case base != out:
		w.Gzip = true
	case gz && (strings.HasSuffix(out, ".json") || strings.HasSuffix(out, ".jsonl")):
		return w, usagef("--gzip writes gzip, but -o %s names a plain JSON file: name it %s.gz (or drop --gzip)", out, out)
	}
	switch {
	case strings.HasSuffix(base, ".jsonl"):
		w.JSONL = true
	case jsonl && strings.HasSuffix(base, ".json"):
		return w, usagef("--jsonl writes JSON Lines, but -o %s ends in .json: name it %sl (or drop --jsonl)", out, base)
	}
	return w, nil
}
