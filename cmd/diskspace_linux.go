package cmd

import "syscall"

// freeSpace is the space an unprivileged writer may use on dir's
// filesystem.
func freeSpace(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
