// Package output writes ckpt's output files so that no command leaves a
// half-written or misplaced file behind: a file is written atomically
// (a temporary file beside it, synced, renamed over it) and removed if
// the command is interrupted; an output never replaces one of the
// command's inputs; a device, pipe or descriptor is written in place; a
// symbolic link keeps pointing where it did; and the output is created,
// never a missing parent directory.
package output

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes what fill produces to path, or to w when path is "" or
// "-". A file is written atomically: into a temporary file in the same
// directory, synced, then renamed over path, so a reader never sees half
// a file and a failed write leaves any old file untouched. fill writes
// to the file itself: every writer ckpt hands it buffers on its own (the
// codec, the renderers, the diagram), so a second buffer here would only
// copy.
func Write(path string, w io.Writer, fill func(io.Writer) error) error {
	if path == "" || path == "-" {
		return fill(w)
	}
	target, inPlace, err := prepare(path)
	if err != nil {
		return err
	}
	if inPlace {
		return writeSpecial(path, fill)
	}
	tmp, err := createTemp(target)
	if err != nil {
		return err
	}
	path = target
	ok := false
	defer func() {
		untrackTemp(tmp.Name())
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	err = fill(tmp)
	for _, step := range []func() error{tmp.Sync, tmp.Close, func() error { return os.Chmod(tmp.Name(), 0o644) }} {
		if err == nil {
			err = step()
		}
	}
	if err != nil {
		return tempError(path, tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %s", path, cause(err))
	}
	ok = true
	return nil
}

// Check refuses, before any work, an output path ("" and "-" are
// stdout) that Write would refuse at the end: an input of this command,
// a directory, a missing parent directory or one ckpt may not write in.
// A long command checks its -o first, so that it does not spend minutes
// and then lose the report.
func Check(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	target, inPlace, err := prepare(path)
	if err != nil || inPlace {
		return err
	}
	tmp, err := createTemp(target)
	if err != nil {
		return err
	}
	tmp.Close()
	untrackTemp(tmp.Name())
	return os.Remove(tmp.Name())
}

// prepare refuses an output that is an input of this command, and says
// where it is written (resolveOutput).
func prepare(path string) (target string, inPlace bool, err error) {
	if IsInput(path) {
		return "", false, fmt.Errorf("writing %s: it is an input of this command, which the output would replace; give another name", path)
	}
	return resolveOutput(path)
}

// createTemp creates the temporary file path is written into, beside
// it, or says in words why the directory takes none.
func createTemp(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	tmp, err := createTracked(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %s", path, dirProblem(dir, err))
	}
	return tmp, nil
}

// tempError names the output, not ckpt's temporary file (or, written in
// place, the file again), in an error of writing it ("writing run.json: no space left on device", not "write
// .run.json.tmp123: …"); other errors (the content's) pass as they are.
func tempError(path, tmp string, err error) error {
	if err == nil {
		return nil
	}
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Path == tmp {
		return fmt.Errorf("writing %s: %s", path, pe.Err)
	}
	return err
}

// resolveOutput says where -o path is written. A symbolic link keeps
// pointing where it did: the file it names is replaced (target), not the
// link, and a link whose chain ends in neither a file nor a directory to
// create one in is refused rather than replaced. A device or named pipe,
// and a path that stands for an open descriptor (/dev/stdout, /dev/fd/N,
// /proc/self/fd/N, also at the end of a link), are written in place
// (inPlace): renaming over them would replace a device, or cut a
// redirection's file loose from the shell. A block device is refused,
// since writing it would overwrite a disk. Any other path, under /dev or
// not (/dev/shm/run.json), is written atomically.
func resolveOutput(path string) (target string, inPlace bool, err error) {
	if isDescriptor(path) {
		return path, true, nil
	}
	if st, err := os.Stat(path); err == nil {
		switch m := st.Mode(); {
		case m.IsDir():
			return "", false, fmt.Errorf("writing %s: it is a directory; give a file name", path)
		case m&os.ModeDevice != 0 && m&os.ModeCharDevice == 0:
			return "", false, fmt.Errorf("writing %s: it is a block device; give a file name", path)
		case !m.IsRegular():
			return path, true, nil
		}
	}
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		return path, false, nil
	}
	target, err = followLink(path)
	if err != nil {
		return "", false, fmt.Errorf("writing %s: it is a symbolic link that names no file (%s); remove it or give another name", path, err)
	}
	return resolveOutput(target)
}

// isDescriptor reports whether path names an open file descriptor
// rather than a file: /dev/stdout and /dev/stderr, /dev/fd/N,
// /proc/PID/fd/N. Its link reads as the file the descriptor is open on
// (for a redirection, the shell's file), whose position and append mode
// the descriptor, not the file, holds.
func isDescriptor(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for _, pattern := range []string{"/dev/stdout", "/dev/stderr", "/dev/fd/*", "/proc/*/fd/*"} {
		if ok, _ := filepath.Match(pattern, abs); ok {
			return true
		}
	}
	return false
}

// followLink follows the chain of symbolic links from path to the file
// it ends at, which may not exist yet if its directory does (a link
// "latest.json" to the run about to be written). It stops at a link that
// stands for a descriptor (isDescriptor), which is written in place.
func followLink(path string) (string, error) {
	for range 40 {
		if isDescriptor(path) {
			return path, nil
		}
		st, err := os.Lstat(path)
		if err != nil {
			if d, derr := os.Stat(filepath.Dir(path)); derr == nil && d.IsDir() {
				return path, nil
			}
			return "", fmt.Errorf("%s: %s", path, cause(err))
		}
		if st.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", cause(err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fmt.Errorf("too many levels of links")
}

// writeSpecial writes, in place, to a device (/dev/null), a named pipe or
// a descriptor (/dev/stdout): renaming a temporary file over a device
// would replace it with a file (run as root, -o /dev/null would have
// broken /dev/null for the whole system), and such a file has nothing to
// keep whole. It appends: a descriptor reopened through /proc starts at
// offset 0, and "ckpt … -o /dev/stdout >> log" must not overwrite the
// start of log (after "> log" the file is empty, so appending is the
// same); devices and pipes ignore it.
func writeSpecial(path string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %s", path, cause(err))
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return tempError(path, path, err)
}

// MakeDir creates dir, a directory an option names for ckpt's
// output files (compare --sweep -o, explore --out), or takes it as it is
// when it exists. One rule for every output, file or directory: ckpt
// creates the output, never the path to it, so a missing parent
// directory is refused, naming it (a typo in a parent would otherwise
// grow a new tree), as replay -o missing/run.json is.
func MakeDir(dir string) error {
	err := os.Mkdir(dir, 0o755)
	if err == nil || errors.Is(err, os.ErrExist) {
		return CheckDir(dir)
	}
	return fmt.Errorf("writing %s: %s", dir, dirProblem(filepath.Dir(filepath.Clean(dir)), err))
}

// CheckDir refuses, before any work, a directory MakeDir would refuse:
// a file, a dangling symbolic link, or a missing directory whose parent
// is missing or not a directory.
func CheckDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err == nil && st.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("writing %s: it is a file, not a directory; give a directory", dir)
	}
	// A link to nothing: MakeDir cannot create the directory there.
	if _, lerr := os.Lstat(dir); lerr == nil {
		return fmt.Errorf("writing %s: it is a symbolic link that names no directory; remove it or give another directory", dir)
	}
	parent := filepath.Dir(filepath.Clean(dir)) // "out/" is out, in .
	if st, err := os.Stat(parent); err != nil || !st.IsDir() {
		return fmt.Errorf("writing %s: %s", dir, dirProblem(parent, err))
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
	return cause(err).Error()
}

// cause returns the error inside a *os.PathError or *os.LinkError
// (rename), or err: the callers name the path in their own words (the
// wrapped error may name ckpt's temporary file instead).
func cause(err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}
