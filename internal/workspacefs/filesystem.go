package workspacefs

// stampsHold are the filesystems, by the names Dir.Filesystem gives them, on
// which a stamp changes with every change of content: the change time moves on
// every write, rename onto and chmod, and a stat reads it from the filesystem
// itself, not from a cache that may lag behind it. ext2 and ext3 share ext4's
// name. Left out, and so never trusted: FAT and exFAT, whose change time never
// moves; network filesystems (NFS, SMB, 9p), whose clients cache attributes;
// FUSE, whose times are whatever its server says; and every filesystem not
// named here, until it is checked.
var stampsHold = map[string]bool{
	// Linux
	"ext4": true, "xfs": true, "btrfs": true, "tmpfs": true, "overlay": true, "zfs": true, "f2fs": true,
	// macOS
	"apfs": true, "hfs": true,
	// FreeBSD (tmpfs and zfs above)
	"ufs": true,
}

// StampsHold tells whether the stamps of files on the filesystem named
// filesystem (as Dir.Filesystem names it) change whenever their content does,
// so that a stamp as it was stands for the content as it was.
func StampsHold(filesystem string) bool { return stampsHold[filesystem] }
