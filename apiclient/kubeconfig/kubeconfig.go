package kubeconfig

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/zerokube/zerokube/apiclient"
)

// The kubeconfig file format, as far as this client uses it. Unknown fields
// are ignored, as kubectl ignores them.
type kubeconfig struct {
	CurrentContext string         `yaml:"current-context"`
	Clusters       []namedCluster `yaml:"clusters"`
	Users          []namedUser    `yaml:"users"`
	Contexts       []namedContext `yaml:"contexts"`
	file           string         // set by the loader: relative paths resolve against its folder
}

type namedCluster struct {
	Name    string      `yaml:"name"`
	Cluster clusterInfo `yaml:"cluster"`
}

type clusterInfo struct {
	Server                   string `yaml:"server"`
	CertificateAuthority     string `yaml:"certificate-authority"`
	CertificateAuthorityData string `yaml:"certificate-authority-data"`
	InsecureSkipTLSVerify    bool   `yaml:"insecure-skip-tls-verify"`
	TLSServerName            string `yaml:"tls-server-name"`
}

type namedUser struct {
	Name string   `yaml:"name"`
	User userInfo `yaml:"user"`
}

type userInfo struct {
	ClientCertificate     string        `yaml:"client-certificate"`
	ClientCertificateData string        `yaml:"client-certificate-data"`
	ClientKey             string        `yaml:"client-key"`
	ClientKeyData         string        `yaml:"client-key-data"`
	Token                 string        `yaml:"token"`
	TokenFile             string        `yaml:"tokenFile"`
	Username              string        `yaml:"username"`
	Exec                  *execConfig   `yaml:"exec"`
	AuthProvider          *authProvider `yaml:"auth-provider"`
}

type execConfig struct {
	Command     string                 `yaml:"command"`
	Args        []string               `yaml:"args"`
	Env         []apiclient.ExecEnvVar `yaml:"env"`
	APIVersion  string                 `yaml:"apiVersion"`
	InstallHint string                 `yaml:"installHint"`
}

type authProvider struct {
	Name string `yaml:"name"`
}

type namedContext struct {
	Name    string      `yaml:"name"`
	Context contextInfo `yaml:"context"`
}

type contextInfo struct {
	Cluster   string `yaml:"cluster"`
	User      string `yaml:"user"`
	Namespace string `yaml:"namespace"`
}

// Error is a problem in a kubeconfig file, naming the file and the
// field.
type Error struct {
	File  string // the file, or the KUBECONFIG list
	Field string // e.g. `users["alice"].user.client-key`; "" for the whole file
	Err   error
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("kubeconfig: %s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("kubeconfig: %s: %s: %v", e.File, e.Field, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// LoadFile reads the kubeconfig file at path and returns the Config of
// context, or of the file's current-context when context is "".
func LoadFile(path, context string) (*apiclient.Config, error) {
	return loadFiles([]string{path}, context, true)
}

// loadFiles merges the files the way kubectl merges KUBECONFIG:
// the first file that defines a cluster, user or context name wins, and the
// first non-empty current-context wins. Missing files are skipped unless
// mustExist; at least one file must exist.
func loadFiles(paths []string, context string, mustExist bool) (*apiclient.Config, error) {
	var files []*kubeconfig
	for _, p := range paths {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) && !mustExist {
			continue
		}
		if err != nil {
			return nil, &Error{File: p, Err: err}
		}
		kc, err := parseKubeconfig(data, p)
		if err != nil {
			return nil, err
		}
		files = append(files, kc)
	}
	if len(files) == 0 {
		return nil, &Error{File: filepath.Join(paths...), Err: errors.New("no kubeconfig file exists")}
	}
	return resolve(files, context)
}

// parseKubeconfig decodes one file; file names it in errors and anchors its
// relative paths.
func parseKubeconfig(data []byte, file string) (*kubeconfig, error) {
	kc := &kubeconfig{file: file}
	if err := yaml.Unmarshal(data, kc); err != nil {
		return nil, &Error{File: file, Err: err}
	}
	return kc, nil
}

// source is one merged entry and the file it came from.
type source[T any] struct {
	v    T
	file string
}

// resolve picks the context and builds the Config from the merged files.
func resolve(files []*kubeconfig, context string) (*apiclient.Config, error) {
	clusters := map[string]source[clusterInfo]{}
	users := map[string]source[userInfo]{}
	contexts := map[string]source[contextInfo]{}
	current, currentFile := "", files[0].file
	for _, f := range files {
		for _, c := range f.Clusters {
			if _, ok := clusters[c.Name]; !ok {
				clusters[c.Name] = source[clusterInfo]{c.Cluster, f.file}
			}
		}
		for _, u := range f.Users {
			if _, ok := users[u.Name]; !ok {
				users[u.Name] = source[userInfo]{u.User, f.file}
			}
		}
		for _, c := range f.Contexts {
			if _, ok := contexts[c.Name]; !ok {
				contexts[c.Name] = source[contextInfo]{c.Context, f.file}
			}
		}
		if current == "" && f.CurrentContext != "" {
			current, currentFile = f.CurrentContext, f.file
		}
	}
	if context == "" {
		context = current
	}
	if context == "" {
		return nil, &Error{File: currentFile, Field: "current-context",
			Err: errors.New("not set, and no context was asked for")}
	}
	ctx, ok := contexts[context]
	if !ok {
		return nil, &Error{File: currentFile, Field: fmt.Sprintf("contexts[%q]", context),
			Err: errors.New("no such context")}
	}
	return buildConfig(context, ctx, clusters, users)
}

func buildConfig(name string, ctx source[contextInfo], clusters map[string]source[clusterInfo],
	users map[string]source[userInfo]) (*apiclient.Config, error) {
	field := fmt.Sprintf("contexts[%q].context", name)
	cl, ok := clusters[ctx.v.Cluster]
	if !ok {
		return nil, &Error{File: ctx.file, Field: field + ".cluster",
			Err: fmt.Errorf("no cluster named %q", ctx.v.Cluster)}
	}
	cfg := &apiclient.Config{Namespace: ctx.v.Namespace, Source: fmt.Sprintf("kubeconfig %s, context %q", ctx.file, name)}
	if err := applyCluster(cfg, ctx.v.Cluster, cl); err != nil {
		return nil, err
	}
	if ctx.v.User == "" {
		return cfg, nil
	}
	u, ok := users[ctx.v.User]
	if !ok {
		return nil, &Error{File: ctx.file, Field: field + ".user",
			Err: fmt.Errorf("no user named %q", ctx.v.User)}
	}
	if err := applyUser(cfg, ctx.v.User, u); err != nil {
		return nil, err
	}
	return cfg, nil
}

func applyCluster(cfg *apiclient.Config, name string, cl source[clusterInfo]) error {
	field := fmt.Sprintf("clusters[%q].cluster", name)
	if cl.v.Server == "" {
		return &Error{File: cl.file, Field: field + ".server", Err: errors.New("missing")}
	}
	if err := apiclient.CheckHost(cl.v.Server); err != nil {
		return &Error{File: cl.file, Field: field + ".server", Err: err}
	}
	cfg.Host = cl.v.Server
	cfg.TLS.Insecure = cl.v.InsecureSkipTLSVerify
	cfg.TLS.ServerName = cl.v.TLSServerName
	cfg.TLS.CAFile = resolvePath(cl.file, cl.v.CertificateAuthority)
	var err error
	if cfg.TLS.CAData, err = decodeData(cl.file, field+".certificate-authority-data", cl.v.CertificateAuthorityData); err != nil {
		return err
	}
	return checkFile(cl.file, field+".certificate-authority", cfg.TLS.CAFile)
}

func applyUser(cfg *apiclient.Config, name string, u source[userInfo]) error {
	field := fmt.Sprintf("users[%q].user", name)
	switch {
	case u.v.Exec != nil:
		if err := applyExec(cfg, u.file, field+".exec", u.v.Exec); err != nil {
			return err
		}
	case u.v.AuthProvider != nil:
		return &Error{File: u.file, Field: field + ".auth-provider",
			Err: fmt.Errorf("auth provider %q is not supported by zerokube", u.v.AuthProvider.Name)}
	case u.v.Username != "":
		return &Error{File: u.file, Field: field + ".username",
			Err: errors.New("basic authentication is not supported by zerokube")}
	}
	cfg.BearerToken = u.v.Token
	cfg.BearerTokenFile = resolvePath(u.file, u.v.TokenFile)
	cfg.TLS.CertFile = resolvePath(u.file, u.v.ClientCertificate)
	cfg.TLS.KeyFile = resolvePath(u.file, u.v.ClientKey)
	var err error
	if cfg.TLS.CertData, err = decodeData(u.file, field+".client-certificate-data", u.v.ClientCertificateData); err != nil {
		return err
	}
	if cfg.TLS.KeyData, err = decodeData(u.file, field+".client-key-data", u.v.ClientKeyData); err != nil {
		return err
	}
	for _, f := range []struct{ name, path string }{{".tokenFile", cfg.BearerTokenFile},
		{".client-certificate", cfg.TLS.CertFile}, {".client-key", cfg.TLS.KeyFile}} {
		if err := checkFile(u.file, field+f.name, f.path); err != nil {
			return err
		}
	}
	return nil
}

// applyExec sets up a credential plugin. A command given as a relative path
// with a separator ("./bin/login") is resolved against the kubeconfig's
// folder, as kubectl does; a bare name is looked up in PATH when it runs.
func applyExec(cfg *apiclient.Config, file, field string, e *execConfig) error {
	if e.Command == "" {
		return &Error{File: file, Field: field + ".command", Err: errors.New("missing")}
	}
	if e.APIVersion != apiclient.ExecV1 && e.APIVersion != apiclient.ExecV1beta1 {
		return &Error{File: file, Field: field + ".apiVersion", Err: fmt.Errorf(
			"credential plugin %q: apiVersion %q is not supported (want %s or %s)", e.Command, e.APIVersion, apiclient.ExecV1, apiclient.ExecV1beta1)}
	}
	cmd := e.Command
	if strings.ContainsRune(cmd, filepath.Separator) {
		cmd = resolvePath(file, cmd)
	}
	cfg.Exec = &apiclient.ExecConfig{Command: cmd, Args: e.Args, Env: e.Env, APIVersion: e.APIVersion, InstallHint: e.InstallHint}
	return nil
}

// resolvePath anchors a relative path at the folder of the kubeconfig that
// named it, as kubectl does.
func resolvePath(kubeconfigFile, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(kubeconfigFile), p)
}

// checkFile fails early, naming the field, when a referenced file is missing.
func checkFile(file, field, p string) error {
	if p == "" {
		return nil
	}
	if _, err := os.Stat(p); err != nil {
		return &Error{File: file, Field: field, Err: err}
	}
	return nil
}

// decodeData decodes a *-data field (base64 of PEM). The error never quotes
// the data: it may be a private key.
func decodeData(file, field, s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			err = fmt.Errorf("not valid base64 (at byte %d)", int64(ce))
		}
		return nil, &Error{File: file, Field: field, Err: err}
	}
	return b, nil
}
