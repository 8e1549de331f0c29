package kubeconfig_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/zerokube/zerokube/apiclient/kubeconfig"
)

// A kubeconfig's context becomes the Config apiclient.New takes; a path in
// the file is relative to the file's folder.
func ExampleLoadFile() {
	dir, err := os.MkdirTemp("", "kubeconfig-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config")
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("s3cret"), 0o600); err != nil {
		log.Fatal(err)
	}
	err = os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev
  cluster: {server: "https://10.0.0.1:6443"}
users:
- name: dev
  user: {tokenFile: token}
contexts:
- name: dev
  context: {cluster: dev, user: dev, namespace: team-a}
`), 0o600)
	if err != nil {
		log.Fatal(err)
	}
	cfg, err := kubeconfig.LoadFile(path, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.Host, cfg.Namespace, filepath.Base(cfg.BearerTokenFile))
	// Output: https://10.0.0.1:6443 team-a token
}
