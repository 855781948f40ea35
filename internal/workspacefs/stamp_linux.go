//go:build linux

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
	return Stamp{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: uint64(st.Dev), Valid: true}
}
