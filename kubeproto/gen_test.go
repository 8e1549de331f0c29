package kubeproto

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCommittedSchemaIsWhatGenWrites regenerates the table into a temporary
// file and compares it with zz_schema.go, so the committed table cannot
// drift from its generator. It runs offline (GOPROXY=off) and skips when
// the module cache lacks k8s.io/api at SchemaVersion (fill it with
// `go mod download k8s.io/api@v0.37.2 k8s.io/client-go@v0.37.2`, or run
// conformance/kube/build.sh) or under -short. The first run compiles
// client-go's scheme, about 90 s on a cold build cache; later runs take
// seconds. It fails only when the generator ran and wrote another table,
// or failed for a reason other than fetching (gen.sh's exit status 3).
func TestCommittedSchemaIsWhatGenWrites(t *testing.T) {
	checkCommittedSchema(t, nil)
}

// genCannotFetch is gen.sh's exit status when it cannot fetch its modules.
const genCannotFetch = 3

// checkCommittedSchema runs the freshness check, with env added to the
// generator's environment.
func checkCommittedSchema(t *testing.T, env []string) {
	if testing.Short() {
		t.Skip("-short: the generator freshness check compiles client-go")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run gen/gen.sh")
	}
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	zip := filepath.Join(strings.TrimSpace(string(modcache)), "cache/download/k8s.io/api/@v", SchemaVersion+".zip")
	if _, err := os.Stat(zip); err != nil {
		t.Skipf("k8s.io/api %s is not in the module cache (%s): the generator cannot run offline", SchemaVersion, zip)
	}
	out := filepath.Join(t.TempDir(), "zz_schema.go")
	cmd := exec.Command("bash", "gen/gen.sh", "-o", out)
	cmd.Env = append(append(os.Environ(), "GOPROXY=off", "KUBE_API_VERSION="+SchemaVersion), env...)
	if output, err := cmd.CombinedOutput(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == genCannotFetch {
			t.Skipf("the generator cannot fetch what it needs offline (a module or its checksum is not in the module cache; "+
				"`go mod download k8s.io/api@%[1]s k8s.io/client-go@%[1]s` online fills it):\n%s", SchemaVersion, output)
		}
		t.Fatalf("gen/gen.sh: %v\n%s", err, output)
	}
	fresh, err := os.ReadFile(out)
	require.NoError(t, err)
	committed, err := os.ReadFile("zz_schema.go")
	require.NoError(t, err)
	if !bytes.Equal(fresh, committed) {
		t.Fatal("zz_schema.go is not what gen/gen.sh writes: run `bash kubeproto/gen/gen.sh` and commit the result")
	}
}

// A generator that cannot fetch its modules (here: a version no cache
// holds, with the network off) makes the check skip, not fail.
func TestTheFreshnessCheckSkipsWhenTheGeneratorCannotFetch(t *testing.T) {
	var sub *testing.T
	t.Run("a version not in the module cache", func(t *testing.T) {
		sub = t
		checkCommittedSchema(t, []string{"KUBE_API_VERSION=v0.0.0-not-in-any-cache"})
	})
	require.True(t, sub.Skipped(), "skipped rather than failed or passed")
}
