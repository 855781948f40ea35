//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package workspacefs

import (
	"io/fs"
	"syscall"
)

func stampOf(info fs.FileInfo) Stamp {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return Stamp{}
	}
	return Stamp{Size: st.Size, Mtime: st.Mtimespec.Nano(), Ctime: st.Ctimespec.Nano(), Ino: uint64(st.Ino), Dev: uint64(st.Dev), Valid: true}
}
