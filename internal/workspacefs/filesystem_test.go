package workspacefs

import "testing"

// Stamps are trusted only on the filesystems known to move the change time on
// every change: never on FAT or exFAT, whose change time stays, nor on a network
// or FUSE filesystem, nor on one not known at all.
func TestStampsHoldOnlyWhereTheChangeTimeIsKnownToMove(t *testing.T) {
	for _, kind := range []string{"ext4", "xfs", "btrfs", "tmpfs", "overlay", "zfs", "f2fs", "apfs", "hfs", "ufs"} {
		if !StampsHold(kind) {
			t.Errorf("stamps on %s are not trusted", kind)
		}
	}
	for _, kind := range []string{"msdos", "vfat", "exfat", "fuse", "fuseblk", "nfs", "smb2", "cifs", "smbfs", "9p", "ramfs", "squashfs", "0x1234", ""} {
		if StampsHold(kind) {
			t.Errorf("stamps on %q are trusted", kind)
		}
	}
}
