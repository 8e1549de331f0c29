package kubeproto

import (
	"bytes"
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
// seconds.
func TestCommittedSchemaIsWhatGenWrites(t *testing.T) {
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
	cmd.Env = append(os.Environ(), "GOPROXY=off", "KUBE_API_VERSION="+SchemaVersion)
	if output, err := cmd.CombinedOutput(); err != nil {
		if bytes.Contains(output, []byte("GOPROXY=off")) || bytes.Contains(output, []byte("module lookup disabled")) {
			t.Skipf("the generator's modules are not all in the module cache:\n%s", output)
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
