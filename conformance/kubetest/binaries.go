package kubetest

import (
	"fmt"
	"os"
	"path/filepath"
)

// Version is the kube-apiserver version the conformance suite is written
// against; PROTOCOL.md's "observed" answers come from it.
const Version = "v1.37.2"

// SkipMessage is the one line a test prints when the binaries are absent.
const SkipMessage = "no kube-apiserver " + Version + " binaries; build them with `bash conformance/kube/build.sh` (10-25 min) to compare with the real server"

// Binaries says where the etcd and kube-apiserver executables are.
type Binaries struct {
	Etcd      string
	APIServer string
}

// Dir is the directory build.sh writes to: $ZEROKUBE_KUBE_BIN if set, else
// ~/.cache/zerokube/kube/<Version>/bin.
func Dir() string {
	if d := os.Getenv("ZEROKUBE_KUBE_BIN"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = "/root"
	}
	return filepath.Join(home, ".cache", "zerokube", "kube", Version, "bin")
}

// Find returns the binaries in Dir, or an error naming the first missing one.
func Find() (Binaries, error) {
	d := Dir()
	b := Binaries{Etcd: filepath.Join(d, "etcd"), APIServer: filepath.Join(d, "kube-apiserver")}
	for _, p := range []string{b.Etcd, b.APIServer} {
		st, err := os.Stat(p)
		if err != nil {
			return b, fmt.Errorf("kubetest: %w", err)
		}
		if st.Mode()&0o111 == 0 {
			return b, fmt.Errorf("kubetest: %s is not executable", p)
		}
	}
	return b, nil
}
