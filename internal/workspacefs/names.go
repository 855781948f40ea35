package workspacefs

import (
	"slices"
	"strings"
)

// windowsDeviceNames are the names Windows keeps for devices in every directory.
var windowsDeviceNames = strings.Fields(`
	con prn aux nul
	com0 com1 com2 com3 com4 com5 com6 com7 com8 com9
	lpt0 lpt1 lpt2 lpt3 lpt4 lpt5 lpt6 lpt7 lpt8 lpt9`)

// WindowsDeviceName tells whether Windows keeps name for a device, in any case: a
// file or directory of that name cannot be made there, so a workspace that holds
// one cannot be checked out on Windows.
func WindowsDeviceName(name string) bool {
	return slices.Contains(windowsDeviceNames, strings.ToLower(name))
}
