// Package deploy holds the dev container and the Kubernetes kustomize base and
// overlays skillsync runs in, and the tests that check them by construction and
// at the process level: no Docker engine is needed to run them; the Renovate
// preset (renovate/skillsync.json) that moves the sources' pins across
// repositories, its patterns checked under RE2; the Prometheus alerts
// (prometheus/skillsync-rules.yaml, with a PodMonitor) and Grafana dashboard
// (grafana/skillsync-dashboard.json) over the watcher's /metrics, checked
// against a real watcher's scrape and by promtool; and the GitLab CI template
// (gitlab/skillsync.gitlab-ci.yml) and the repository's action.yml, whose
// scripts the tests run with the built binary.
//
// It imports nothing of this module.
package deploy
