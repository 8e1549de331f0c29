package conformance

import (
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/metrics"
)

// kubeWorkqueueFamily is what kube-apiserver's /metrics says of one
// workqueue_* family: its TYPE, and the label names and "le" values of
// its samples.
type kubeWorkqueueFamily struct {
	kind   string
	labels map[string]bool // label names seen, "le" aside
	les    []string        // bucket bounds of the first series, in order
}

// sampleRE splits a sample line: name{labels} value.
var sampleRE = regexp.MustCompile(`^([a-z_]+)\{([^}]*)\} \S+$`)

// labelRE finds each name="value" pair of a label set.
var labelRE = regexp.MustCompile(`([a-z_]+)="((?:[^"\\]|\\.)*)"`)

// kubeWorkqueueFamilies reads kube-apiserver's own workqueue_* families
// from its /metrics: it runs client-go's work queues (its controllers'),
// with component-base's Prometheus provider.
func kubeWorkqueueFamilies(t *testing.T, tg *target) map[string]*kubeWorkqueueFamily {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, tg.url+"/metrics", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tg.token)
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := tg.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	fams := map[string]*kubeWorkqueueFamily{}
	firstSeries := map[string]string{} // family → the name="..." of the series whose les are kept
	for line := range strings.Lines(string(body)) {
		line = strings.TrimSpace(line)
		if f, ok := strings.CutPrefix(line, "# TYPE workqueue_"); ok {
			name, kind, _ := strings.Cut(f, " ")
			fams["workqueue_"+name] = &kubeWorkqueueFamily{kind: kind, labels: map[string]bool{}}
			continue
		}
		m := sampleRE.FindStringSubmatch(line)
		if m == nil || !strings.HasPrefix(m[1], "workqueue_") {
			continue
		}
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m[1], "_bucket"), "_sum"), "_count")
		f := fams[base]
		if f == nil {
			f = fams[m[1]]
		}
		require.NotNil(t, f, "a sample of %s before its TYPE line", m[1])
		var queue, le string
		for _, l := range labelRE.FindAllStringSubmatch(m[2], -1) {
			switch l[1] {
			case "le":
				le = l[2]
			default:
				f.labels[l[1]] = true
				if l[1] == "name" {
					queue = l[2]
				}
			}
		}
		if le != "" && le != "+Inf" {
			if _, ok := firstSeries[base]; !ok {
				firstSeries[base] = queue
			}
			if firstSeries[base] == queue {
				f.les = append(f.les, le)
			}
		}
	}
	return fams
}

// TestWorkqueueMetricsAreKubeAPIServers: package metrics names the work
// queue's families as client-go does. kube-apiserver v1.37.2 exposes its
// own work queues' metrics; every workqueue_* family of the catalogue is
// there with the same type, the same label and the same buckets.
func TestWorkqueueMetricsAreKubeAPIServers(t *testing.T) {
	tg := realTarget(t, realServer(t))
	kube := kubeWorkqueueFamilies(t, tg)
	n := 0
	for _, d := range metrics.Catalogue() {
		if !strings.HasPrefix(d.Name, "workqueue_") {
			continue
		}
		n++
		k := kube[d.Name]
		require.NotNil(t, k, "kube-apiserver has no %s", d.Name)
		require.Equal(t, k.kind, d.Kind.String(), d.Name)
		require.Equal(t, d.Labels, slices.Sorted(maps.Keys(k.labels)), d.Name)
		if d.Kind == metrics.Histogram {
			var b strings.Builder
			reg := metrics.NewRegistry()
			reg.Histogram(d, "q").Observe(0)
			require.NoError(t, reg.WriteText(&b))
			var ours []string
			for _, m := range regexp.MustCompile(`le="([^"]+)"`).FindAllStringSubmatch(b.String(), -1) {
				if m[1] != "+Inf" {
					ours = append(ours, m[1])
				}
			}
			require.Equal(t, k.les, ours, "%s: the buckets, as both print them", d.Name)
		}
	}
	require.Equal(t, 7, n, "client-go has seven work queue metrics")
	t.Logf("kube-apiserver's workqueue_* families match the catalogue's seven: %v", slices.Sorted(maps.Keys(kube)))
}
