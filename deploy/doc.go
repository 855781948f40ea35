// Package deploy holds the dev container and Kubernetes manifests skillsync
// runs in, and the tests that check them at the process level: no Docker engine
// is needed to run them; and the Renovate preset (renovate/skillsync.json) that
// moves the sources' pins across repositories, its patterns checked under RE2;
// and the Prometheus alerts (prometheus/skillsync-rules.yaml, with a PodMonitor)
// and Grafana dashboard (grafana/skillsync-dashboard.json) over the watcher's
// /metrics, checked against a real watcher's scrape and by promtool.
//
// It imports nothing of this module.
package deploy
