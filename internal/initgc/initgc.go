package initgc

import "runtime/debug"

// pace is the collector's percentage as the environment set it (GOGC).
var pace = debug.SetGCPercent(-1)

// Done turns the collector back on at the pace the environment set; the main
// package calls it once every package it imports is initialized.
func Done() { debug.SetGCPercent(pace) }
