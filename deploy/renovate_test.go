package deploy_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// renovatePreset is the part of the Renovate preset the tests read.
type renovatePreset struct {
	CustomManagers []struct {
		ManagerFilePatterns []string `json:"managerFilePatterns"`
		MatchStrings        []string `json:"matchStrings"`
		DepNameTemplate     string   `json:"depNameTemplate"`
		DatasourceTemplate  string   `json:"datasourceTemplate"`
	} `json:"customManagers"`
}

type renovateDep struct {
	Datasource   string `json:"datasource"`
	DepName      string `json:"depName"`
	CurrentValue string `json:"currentValue"`
}

// TestTheRenovatePresetUnderRE2 runs the preset's custom managers with Go's
// RE2, the engine Renovate runs them with (node-re2), against the same files
// and expectations as the Node test of the preset: each pattern must compile
// in RE2's syntax and find the same pins.
func TestTheRenovatePresetUnderRE2(t *testing.T) {
	var preset renovatePreset
	readJSON(t, filepath.Join("renovate", "skillsync.json"), &preset)
	var expected map[string][]renovateDep
	readJSON(t, filepath.Join("renovate", "testdata", "expected.json"), &expected)
	if len(expected) == 0 || len(preset.CustomManagers) == 0 {
		t.Fatal("no managers or no expectations were read")
	}
	template := regexp.MustCompile(`\{\{\{?(\w+)\}?\}\}`)
	for file, want := range expected {
		data, err := os.ReadFile(filepath.Join("renovate", "testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		var got []renovateDep
		for _, m := range preset.CustomManagers {
			for _, source := range m.MatchStrings {
				re, err := regexp.Compile(source)
				if err != nil {
					t.Fatalf("%q is not RE2 syntax: %v", source, err)
				}
				for _, match := range re.FindAllStringSubmatch(string(data), -1) {
					group := func(name string) string {
						if i := re.SubexpIndex(name); i >= 0 {
							return match[i]
						}
						return ""
					}
					name := group("depName")
					if m.DepNameTemplate != "" {
						name = template.ReplaceAllStringFunc(m.DepNameTemplate, func(s string) string { return group(template.FindStringSubmatch(s)[1]) })
					}
					got = append(got, renovateDep{Datasource: m.DatasourceTemplate, DepName: name, CurrentValue: group("currentValue")})
				}
			}
		}
		order := func(a, b renovateDep) int {
			return strings.Compare(a.Datasource+" "+a.DepName+" "+a.CurrentValue, b.Datasource+" "+b.DepName+" "+b.CurrentValue)
		}
		slices.SortFunc(got, order)
		slices.SortFunc(want, order)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the preset finds %+v, want %+v", file, got, want)
		}
	}
}

// publicKey is a PEM public key, as a source's verify names one.
func publicKey(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// TestTheRenovateFixturesAreWorkspaces: the files the preset is checked
// against are skillsync.yaml files skillsync itself reads without a problem.
func TestTheRenovateFixturesAreWorkspaces(t *testing.T) {
	var expected map[string][]renovateDep
	readJSON(t, filepath.Join("renovate", "testdata", "expected.json"), &expected)
	for file := range expected {
		data, err := os.ReadFile(filepath.Join("renovate", "testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		ws := t.TempDir()
		testkit.WriteFiles(t, ws, map[string]string{
			registry.ConfigName:  string(data),
			"registry/none.yaml": "",
			"keys/acme.pub":      publicKey(t),
		})
		if _, err := registry.LoadConfig(workspacefs.OS{}, ws, registry.ConfigName, nil); err != nil {
			t.Errorf("%s does not read as a workspace: %v", file, err)
		}
	}
}
