package docs_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// floors orders the module's packages from the leaf vocabulary up to the
// programs: a package may import only packages on a lower floor (test files
// are free to use fixtures and the fake from above). It is the house plan
// docs/internals.md ("The rooms") describes; a package missing here fails
// the test, so a new one gets a floor when it is added.
var floors = [][]string{
	{"internal/jsonscan", "internal/cutproxy", "internal/gunzip"},
	{"meta", "clock", "internal/pbwire", "internal/ring", "internal/fieldsv1", "shard", "cache", "snapshot"},
	{"kubeproto", "clock/clocktest", "fifo", "workqueue", "internal/workload", "informer/observe"},
	{"protodec", "internal/testutil"},
	{"watchstream"},
	{"apiclient", "fakeapiserver/internal/storage"},
	{"apiclient/kubeconfig", "apiclient/websocket", "discovery", "leaderelection", "fakeapiserver", "conformance/kubetest"},
	{"informer", "fakeapiserver/fakeapiservertest"},
	{"metrics"},
	{"metrics/metricstest"},
}

// top are the programs and suites, above every floor: nothing may import them.
var top = []string{"cmd/", "bench", "conformance", "reliability", "docs"}

func TestNoPackageImportsAHigherFloor(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "github.com/zerokube/zerokube/...").Output()
	if err != nil {
		t.Skipf("go list: %v (needs the go command)", err)
	}
	const mod = "github.com/zerokube/zerokube/"
	floor := map[string]int{}
	for i, f := range floors {
		for _, p := range f {
			floor[p] = i
		}
	}
	isTop := func(p string) bool {
		for _, t := range top {
			if p == t || strings.HasPrefix(p, t) && (strings.HasSuffix(t, "/") || strings.HasPrefix(p, t+"/")) {
				return true
			}
		}
		return false
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		if pkg == strings.TrimSuffix(mod, "/") {
			continue
		}
		own, ok := floor[pkg]
		if !ok {
			require.True(t, isTop(pkg), "package %s has no floor: give it one in floors", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, inModule := strings.CutPrefix(imp, mod)
			if !inModule {
				continue
			}
			f, ok := floor[dep]
			require.True(t, ok, "%s imports %s, a program or suite", pkg, dep)
			require.Less(t, f, own, "%s (floor %d) imports %s (floor %d): imports point down", pkg, own, dep, f)
		}
	}
}
