// The real-client conformance suite: every skill skillsync writes is run in the real
// Claude Code and Qwen Code against a mock model API, and what reached the model is
// checked. Run it with `make e2e`.
//
// It imports nothing of this module.
package e2e
