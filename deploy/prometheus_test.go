//go:build linux

package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// requirePromtool names the variable that makes a missing promtool fail the
// test rather than skip it: CI sets it, so the rules cannot go unchecked there.
const requirePromtool = "SKILLSYNC_REQUIRE_PROMTOOL"

// prometheusRule is the part of the PrometheusRule the tests read; Spec is
// kept as it is written, to be handed to promtool.
type prometheusRule struct {
	APIVersion string    `yaml:"apiVersion"`
	Kind       string    `yaml:"kind"`
	Spec       yaml.Node `yaml:"spec"`
}

// ruleGroups writes the rule groups of the PrometheusRule into dir as
// skillsync-rules.groups.yaml, the rule file promtool reads (the unit tests
// name it), and returns its path. The PrometheusRule is the one copy of the
// rules.
func ruleGroups(t *testing.T, dir string) string {
	t.Helper()
	var rule prometheusRule
	readYAML(t, "prometheus/skillsync-rules.yaml", &rule)
	if rule.APIVersion != "monitoring.coreos.com/v1" || rule.Kind != "PrometheusRule" {
		t.Fatalf("skillsync-rules.yaml is %s %s, not a monitoring.coreos.com/v1 PrometheusRule", rule.APIVersion, rule.Kind)
	}
	data, err := yaml.Marshal(&rule.Spec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "skillsync-rules.groups.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// promtool is the promtool on PATH; without one the test is skipped, unless
// requirePromtool is set.
func promtool(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv(requirePromtool) != "" {
			t.Fatalf("%s is set and promtool is not on PATH: %v", requirePromtool, err)
		}
		t.Skipf("promtool is not on PATH (Debian's prometheus package has it; %s=1 makes this a failure)", requirePromtool)
	}
	return path
}

// The alerts are valid rules, and each fires when its trouble has lasted and
// not for a healthy watcher, as skillsync-rules.test.yaml says.
func TestPromtoolChecksAndTestsTheRules(t *testing.T) {
	bin := promtool(t)
	dir := t.TempDir()
	groups := ruleGroups(t, dir)
	if out, err := exec.Command(bin, "check", "rules", groups).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	tests, err := os.ReadFile("prometheus/skillsync-rules.test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	testFile := filepath.Join(dir, "skillsync-rules.test.yaml")
	if err := os.WriteFile(testFile, tests, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "test", "rules", testFile).CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
}

// Every alert has a unit test in which it fires and one in which it does not:
// an alert added without them fails here.
func TestEveryAlertIsTestedFiringAndQuiet(t *testing.T) {
	var groups struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	var rule prometheusRule
	readYAML(t, "prometheus/skillsync-rules.yaml", &rule)
	if err := rule.Spec.Decode(&groups); err != nil {
		t.Fatal(err)
	}
	var tests struct {
		RuleFiles []string `yaml:"rule_files"`
		Tests     []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	readYAML(t, "prometheus/skillsync-rules.test.yaml", &tests)
	if !slices.Equal(tests.RuleFiles, []string{"skillsync-rules.groups.yaml"}) {
		t.Errorf("the unit tests read %v, not the rule groups the test writes", tests.RuleFiles)
	}
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	alerts := 0
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			if !fires[r.Alert] || !quiet[r.Alert] {
				t.Errorf("alert %s: tested firing %v, tested quiet %v; want both", r.Alert, fires[r.Alert], quiet[r.Alert])
			}
		}
	}
	if alerts == 0 {
		t.Error("skillsync-rules.yaml holds no alert")
	}
}

// The PodMonitor scrapes the health port of the pod the deploy files describe.
func TestPodMonitorScrapesTheSidecar(t *testing.T) {
	var monitor struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Selector struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			} `yaml:"selector"`
			Endpoints []struct {
				Port, Path string
			} `yaml:"podMetricsEndpoints"`
		} `yaml:"spec"`
	}
	readYAML(t, "prometheus/podmonitor.yaml", &monitor)
	pod := buildKustomization(t, "kubernetes/base").deployments[0].Spec.Template
	skillsync, _ := sidecar(pod.Spec, "skillsync")
	if skillsync == nil {
		t.Fatal("the base runs no skillsync sidecar")
	}
	if monitor.Kind != "PodMonitor" || len(monitor.Spec.Selector.MatchLabels) == 0 {
		t.Fatalf("podmonitor.yaml: %+v", monitor)
	}
	for k, v := range monitor.Spec.Selector.MatchLabels {
		if pod.Labels[k] != v {
			t.Errorf("the PodMonitor selects %s=%s; the pod is labelled %v", k, v, pod.Labels)
		}
	}
	var ports []string
	for _, p := range skillsync.Ports {
		ports = append(ports, p.Name)
	}
	if len(monitor.Spec.Endpoints) != 1 || monitor.Spec.Endpoints[0].Path != "/metrics" || !slices.Contains(ports, monitor.Spec.Endpoints[0].Port) {
		t.Errorf("the PodMonitor scrapes %+v; the sidecar's ports are %v", monitor.Spec.Endpoints, ports)
	}
}
