//go:build !linux && !darwin && !freebsd

package workspacefs

import "errors"

// filesystemType is not known here: Windows keeps no change time, so its stamps
// hold nothing anyway (see stampOf), and the other systems are not checked.
func filesystemType(uintptr) (string, error) { return "", errors.ErrUnsupported }
