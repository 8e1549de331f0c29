package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// scenario is one thing a client does, writing down what it observes. What
// it must observe is documented[name]: what kube-apiserver v1.37.2 answers.
type scenario struct {
	name string
	run  func(t *testing.T, tg *target, o *obs)
}

// knownDifferences are scenarios the fake does not pass yet, each with its
// reason; they are skipped on the fake only. An entry whose scenario passes
// fails the suite: remove it when the fix lands.
var knownDifferences = map[string]string{}

// scenarios gathers every table of scenarios.
func scenarios() []scenario {
	var all []scenario
	for _, tab := range [][]scenario{statusScenarios, writeScenarios, fieldScenarios, listScenarios, watchScenarios, websocketScenarios, kubectlScenarios, lifecycleScenarios, crdScenarios, protobufScenarios, partialScenarios, futureScenarios} {
		all = append(all, tab...)
	}
	return all
}

func TestConformance(t *testing.T) {
	for _, sc := range scenarios() {
		want := documented[sc.name]
		t.Run(sc.name, func(t *testing.T) {
			t.Run("fake", func(t *testing.T) {
				got := observeScenario(t, fakeTarget(t), sc)
				results.put(sc.name, "fake", got)
				if why, ok := knownDifferences[sc.name]; ok {
					require.NotEqual(t, want, got, "%s now matches kube-apiserver: remove it from knownDifferences", sc.name)
					t.Skipf("known difference (issue #14): %s", why)
				}
				require.Equal(t, want, got, "the fake differs from kube-apiserver")
			})
			t.Run("kube-apiserver", func(t *testing.T) {
				got := observeScenario(t, realTarget(t, realServer(t)), sc)
				results.put(sc.name, "kube-apiserver", got)
				require.Equal(t, want, got, "kube-apiserver differs from the documented observation")
			})
		})
	}
}

func observeScenario(t *testing.T, tg *target, sc scenario) []string {
	var o obs
	sc.run(t, tg, &o)
	lines := o.normalised()
	if dir := os.Getenv("CONFORMANCE_DUMP"); dir != "" { // to write a want from the real server
		f := filepath.Join(dir, tg.name, strings.ReplaceAll(sc.name, "/", "_")+".txt")
		_ = os.MkdirAll(filepath.Dir(f), 0o755)
		_ = os.WriteFile(f, []byte(fmt.Sprintf("%#v\n", lines)), 0o644)
	}
	return lines
}

// results keeps every observation, to count in TestMain how many scenarios
// the fake and the real server observe alike.
var results = &resultLog{m: map[string]map[string][]string{}}

// resultLog holds observations by scenario and server.
type resultLog struct {
	sync.Mutex
	m map[string]map[string][]string // guarded by the mutex
}

func (r *resultLog) put(name, server string, lines []string) {
	r.Lock()
	defer r.Unlock()
	if r.m[name] == nil {
		r.m[name] = map[string][]string{}
	}
	r.m[name][server] = lines
}

func printMatches() {
	results.Lock()
	defer results.Unlock()
	var names, differ []string
	for name, by := range results.m {
		if f, k := by["fake"], by["kube-apiserver"]; f != nil && k != nil {
			names = append(names, name)
			if !slices.Equal(f, k) {
				differ = append(differ, name)
			}
		}
	}
	if len(names) == 0 {
		return
	}
	sort.Strings(differ)
	fmt.Printf("conformance: %d of %d scenarios observe the same on the fake and kube-apiserver\n", len(names)-len(differ), len(names))
	for _, d := range differ {
		fmt.Printf("conformance: differs: %s\n", d)
	}
}
