//go:build linux

package deploy_test

import (
	"fmt"
	"net"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// The kustomize base and each overlay are built as `kubectl apply -k` builds
// them, and every object is decoded strictly into the Kubernetes API types: a
// misspelt or misplaced field fails here, not at the cluster.
var kustomizations = []string{"kubernetes/base", "kubernetes/overlays/git-sync", "kubernetes/overlays/node"}

// build is one kustomization's objects, decoded.
type build struct {
	dir         string
	deployments []*appsv1.Deployment
	claims      map[string]*corev1.PersistentVolumeClaim
	configMaps  map[string]*corev1.ConfigMap
	policies    []*networkingv1.NetworkPolicy
}

func buildKustomization(t *testing.T, dir string) build {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{appsv1.AddToScheme, corev1.AddToScheme, networkingv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	b := build{dir: dir, claims: map[string]*corev1.PersistentVolumeClaim{}, configMaps: map[string]*corev1.ConfigMap{}}
	for _, r := range m.Resources() {
		doc, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		obj, _, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("%s: %s %s: %v", dir, r.GetKind(), r.GetName(), err)
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			b.deployments = append(b.deployments, o)
		case *corev1.PersistentVolumeClaim:
			b.claims[o.Name] = o
		case *corev1.ConfigMap:
			b.configMaps[o.Name] = o
		case *networkingv1.NetworkPolicy:
			b.policies = append(b.policies, o)
		default:
			t.Errorf("%s: %s %s is a kind this test does not check", dir, r.GetKind(), r.GetName())
		}
	}
	if len(b.deployments) != 1 || len(b.policies) != 1 {
		t.Fatalf("%s: want one Deployment and one NetworkPolicy, got %d and %d", dir, len(b.deployments), len(b.policies))
	}
	return b
}

// A skillsync image is pinned to a release (and may add its digest); others to
// a version tag at least.
var (
	skillsyncImage = regexp.MustCompile(`^ghcr\.io/skillsync/skillsync(-node)?:v\d+\.\d+\.\d+(@sha256:[0-9a-f]{64})?$`)
	pinnedImage    = regexp.MustCompile(`^[^:@]+(:[^:@]+)(@sha256:[0-9a-f]{64})?$`)
)

func TestKustomizationsBuildAndHoldTogether(t *testing.T) {
	for _, dir := range kustomizations {
		t.Run(path.Base(dir), func(t *testing.T) {
			b := buildKustomization(t, dir)
			for _, problem := range b.problems() {
				t.Error(problem)
			}
		})
	}
}

// problems lists what would keep the build from working as docs/fleet.md says.
func (b build) problems() []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	d := b.deployments[0]
	pod := d.Spec.Template.Spec
	labels := d.Spec.Template.Labels
	if d.Spec.Selector == nil || !selects(d.Spec.Selector.MatchLabels, labels) {
		add("the Deployment's selector does not select its pods")
	}
	if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		add("the pod does not run as a non-root user")
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
		if c := v.PersistentVolumeClaim; c != nil && b.claims[c.ClaimName] == nil {
			add("volume %s names the claim %s, which the build does not define", v.Name, c.ClaimName)
		}
	}
	skillsync, at := sidecar(pod, "skillsync")
	if skillsync == nil {
		return append(out, "no skillsync native sidecar (an init container with restartPolicy Always)")
	}
	for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
		if !pinnedImage.MatchString(c.Image) || strings.HasSuffix(c.Image, ":latest") {
			add("container %s: image %s is not pinned to a version", c.Name, c.Image)
		}
		sc := c.SecurityContext
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
			add("container %s may gain privileges or keeps capabilities", c.Name)
		}
		for _, m := range c.VolumeMounts {
			if _, ok := volumes[m.Name]; !ok {
				add("container %s mounts %s, which is no volume of the pod", c.Name, m.Name)
			}
		}
		for _, e := range c.EnvFrom {
			if e.ConfigMapRef != nil && b.configMaps[e.ConfigMapRef.Name] == nil {
				add("container %s takes its environment from ConfigMap %s, which the build does not define", c.Name, e.ConfigMapRef.Name)
			}
		}
		if c.RestartPolicy != nil && c.Name != "skillsync" && (c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem) {
			add("sidecar %s has a writable root filesystem", c.Name)
		}
	}
	if !skillsyncImage.MatchString(skillsync.Image) {
		add("skillsync's image %s is not a pinned skillsync release", skillsync.Image)
	}
	if sc := skillsync.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		add("skillsync has a writable root filesystem")
	}
	res := skillsync.Resources
	if res.Requests.Cpu().IsZero() || res.Requests.Memory().IsZero() || res.Limits.Memory().IsZero() {
		add("skillsync's resources %v name no CPU and memory request and memory limit", res)
	}
	// The probes reach the address the watcher serves.
	_, port, _ := net.SplitHostPort(flagValue(skillsync.Args, "--health-addr"))
	health := ""
	for _, p := range skillsync.Ports {
		if fmt.Sprint(p.ContainerPort) == port {
			health = p.Name
		}
	}
	for name, p := range map[string]*corev1.Probe{"/readyz": skillsync.ReadinessProbe, "/healthz": skillsync.LivenessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != name || health == "" || p.HTTPGet.Port.String() != health {
			add("skillsync's probe of %s does not reach --health-addr %q", name, port)
		}
	}
	// skillsync writes where the agent works: the same volume, the same path.
	workspace := flagValue(skillsync.Args, "--workspace")
	volume, _ := mountOf(*skillsync, workspace)
	agent := pod.Containers[0]
	if agentVolume, _ := mountOf(agent, workspace); volume == "" || agentVolume != volume || agent.WorkingDir != workspace {
		add("the agent container (%s, working in %s) does not work in skillsync's --workspace %s", agent.Name, agent.WorkingDir, workspace)
	}
	// A read-only root filesystem: whatever the sidecar writes outside the
	// workspace (npx's cache, its home) must be on a volume.
	for _, e := range skillsync.Env {
		if (e.Name == "HOME" || strings.HasSuffix(e.Name, "_CACHE")) && !writable(*skillsync, volumes, e.Value) {
			add("skillsync's %s=%s is on no writable volume", e.Name, e.Value)
		}
	}
	if gitSync, g := sidecar(pod, "git-sync"); gitSync != nil {
		link := path.Join(flagValue(gitSync.Args, "--root"), flagValue(gitSync.Args, "--link"))
		if g > at || link != workspace {
			add("git-sync (init container %d) publishes %s; skillsync (init container %d) works on %s", g, link, at, workspace)
		}
		if v, _ := mountOf(*gitSync, link); v != volume {
			add("git-sync writes %s on volume %q, skillsync reads volume %q", link, v, volume)
		}
		// A sidecar counts as started once its process runs, so git-sync's first
		// sync must be an init container of its own that ends before skillsync
		// starts: a workspace root that is not there yet stops the watcher.
		first := slices.IndexFunc(pod.InitContainers, func(c corev1.Container) bool {
			return c.RestartPolicy == nil && slices.Contains(c.Args, "--one-time") &&
				path.Join(flagValue(c.Args, "--root"), flagValue(c.Args, "--link")) == link
		})
		if first < 0 || first > at {
			add("no git-sync --one-time init container publishes %s before skillsync starts", link)
		}
	}
	np := b.policies[0]
	if len(np.Spec.PodSelector.MatchLabels) == 0 || !selects(np.Spec.PodSelector.MatchLabels, labels) {
		add("the NetworkPolicy selects %v, not the workspace pod (%v)", np.Spec.PodSelector.MatchLabels, labels)
	}
	if len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].Ports) != 1 || np.Spec.Ingress[0].Ports[0].Port.String() != port {
		add("the NetworkPolicy lets in other than the health port %s", port)
	}
	return out
}

// sidecar is the init container name that runs beside the pod's containers,
// and its index.
func sidecar(pod corev1.PodSpec, name string) (*corev1.Container, int) {
	for i, c := range pod.InitContainers {
		if c.Name == name && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			return &pod.InitContainers[i], i
		}
	}
	return nil, -1
}

// flagValue is the value of flag in args, given as "--flag value" or
// "--flag=value".
func flagValue(args []string, flag string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// mountOf is the volume c sees at p, and where it mounts it.
func mountOf(c corev1.Container, p string) (string, string) {
	var volume, at string
	for _, m := range c.VolumeMounts {
		if (p == m.MountPath || strings.HasPrefix(p, strings.TrimSuffix(m.MountPath, "/")+"/")) && len(m.MountPath) > len(at) {
			volume, at = m.Name, m.MountPath
		}
	}
	return volume, at
}

// writable tells whether p is on a volume c mounts read-write.
func writable(c corev1.Container, volumes map[string]corev1.Volume, p string) bool {
	name, at := mountOf(c, p)
	for _, m := range c.VolumeMounts {
		if m.Name == name && m.MountPath == at {
			_, ok := volumes[name]
			return ok && !m.ReadOnly
		}
	}
	return false
}

// selects tells whether every label of selector is among labels.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// The image variant with Node is what the node overlay runs.
func TestNodeOverlayRunsTheNodeImage(t *testing.T) {
	b := buildKustomization(t, "kubernetes/overlays/node")
	skillsync, _ := sidecar(b.deployments[0].Spec.Template.Spec, "skillsync")
	if skillsync == nil || !strings.HasPrefix(skillsync.Image, "ghcr.io/skillsync/skillsync-node:") {
		t.Fatalf("the node overlay runs %v", skillsync)
	}
	// npx writes its cache under HOME or NPM_CONFIG_CACHE: both on the scratch
	// volume (TestKustomizationsBuildAndHoldTogether checks it is writable).
	var env []string
	for _, e := range skillsync.Env {
		env = append(env, e.Name)
	}
	if !slices.Contains(env, "HOME") || !slices.Contains(env, "NPM_CONFIG_CACHE") {
		t.Errorf("skillsync's environment %v does not put npx's home and cache on a volume", env)
	}
	if _, ok := readDockerfile(t).stages["node"]; !ok {
		t.Error("the Dockerfile has no node target to build that image from")
	}
}

// kubernetesImage is the skillsync image the base runs.
func kubernetesImage(t *testing.T) string {
	t.Helper()
	skillsync, _ := sidecar(buildKustomization(t, "kubernetes/base").deployments[0].Spec.Template.Spec, "skillsync")
	if skillsync == nil {
		t.Fatal("the base runs no skillsync sidecar")
	}
	return skillsync.Image
}
