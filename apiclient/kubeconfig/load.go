package kubeconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/zerokube/zerokube/apiclient"
)

// Load finds a Config the way kubectl does: the explicit kubeconfig path
// when given (it must exist), else the files listed in KUBECONFIG (merged,
// first wins), else ~/.kube/config when it exists, else the in-cluster
// config. master, when not "", replaces the server address.
func Load(explicitPath, master string) (*apiclient.Config, error) {
	return load(explicitPath, master, loadEnv{getenv: os.Getenv, home: os.UserHomeDir, inCluster: apiclient.InCluster})
}

// loadEnv is what Load reads from the process, injected for tests.
type loadEnv struct {
	getenv    func(string) string
	home      func() (string, error)
	inCluster func() (*apiclient.Config, error)
}

func load(explicitPath, master string, env loadEnv) (*apiclient.Config, error) {
	cfg, err := loadChain(explicitPath, env)
	if errors.Is(err, apiclient.ErrNotInCluster) && master != "" {
		cfg, err = &apiclient.Config{Source: "master flag"}, nil
	}
	if err != nil {
		return nil, err
	}
	if master != "" {
		cfg.Host = master
	}
	return cfg, nil
}

func loadChain(explicitPath string, env loadEnv) (*apiclient.Config, error) {
	if explicitPath != "" {
		return LoadFile(explicitPath, "")
	}
	if list := env.getenv("KUBECONFIG"); list != "" {
		return loadFiles(filepath.SplitList(list), "", false)
	}
	if home, err := env.home(); err == nil && home != "" {
		p := filepath.Join(home, ".kube", "config")
		if _, err := os.Stat(p); err == nil {
			return LoadFile(p, "")
		}
	}
	cfg, err := env.inCluster()
	if errors.Is(err, apiclient.ErrNotInCluster) {
		return nil, fmt.Errorf("%w; and no kubeconfig was found (no explicit path, KUBECONFIG unset, no ~/.kube/config)", err)
	}
	return cfg, err
}
