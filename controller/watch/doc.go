// Package watch keeps a workspace converged until stopped: a loop that runs a
// pass on every change (fsnotify, or polling where events do not arrive), a queue
// that debounces them, the watch set that follows the inputs and target
// directories, the judgement of which events are the loop's own writes, and the
// /healthz, /readyz and /metrics endpoints a run's report feeds. It owns the
// Informer the passes run through; the pass itself is controller's.
//
// It imports, of this module: clients, controller, controller/apply,
// controller/plan, controller/state, desired, desired/registry, internal/banner,
// internal/workspacefs, observed.
package watch
