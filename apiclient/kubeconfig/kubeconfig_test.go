package kubeconfig

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zerokube/zerokube/apiclient"
)

// writeFile writes content under dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

const fullKubeconfig = `apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority: certs/ca.crt
    tls-server-name: kubernetes
- name: prod-cluster
  cluster:
    server: https://prod:6443
    certificate-authority-data: ` + "Q0EtREFUQQ==" + `
    insecure-skip-tls-verify: true
users:
- name: dev-user
  user:
    client-certificate: certs/client.crt
    client-key: /abs/ignored-in-test.key
- name: prod-user
  user:
    token: prod-token
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
- name: file-user
  user:
    tokenFile: token
contexts:
- name: dev
  context: {cluster: dev-cluster, user: dev-user, namespace: team-a}
- name: prod
  context: {cluster: prod-cluster, user: prod-user}
- name: tokenfile
  context: {cluster: prod-cluster, user: file-user}
`

func TestLoadKubeconfigContexts(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "certs/ca.crt", "x")
	writeFile(t, dir, "certs/client.crt", "x")
	writeFile(t, dir, "token", "t")
	keyPath := writeFile(t, dir, "abs.key", "x")
	p := writeFile(t, dir, "config", strings.Replace(fullKubeconfig, "/abs/ignored-in-test.key", keyPath, 1))

	cfg, err := LoadFile(p, "")
	require.NoError(t, err)
	require.Equal(t, "https://10.0.0.1:6443", cfg.Host)
	require.Equal(t, filepath.Join(dir, "certs/ca.crt"), cfg.TLS.CAFile, "relative to the kubeconfig's folder")
	require.Equal(t, filepath.Join(dir, "certs/client.crt"), cfg.TLS.CertFile)
	require.Equal(t, keyPath, cfg.TLS.KeyFile)
	require.Equal(t, "kubernetes", cfg.TLS.ServerName)
	require.Equal(t, "team-a", cfg.Namespace)

	cfg, err = LoadFile(p, "prod")
	require.NoError(t, err)
	require.Equal(t, "https://prod:6443", cfg.Host)
	require.Equal(t, "prod-token", cfg.BearerToken)
	require.Equal(t, []byte("CA-DATA"), cfg.TLS.CAData)
	require.Equal(t, []byte("CERT"), cfg.TLS.CertData)
	require.Equal(t, []byte("KEY"), cfg.TLS.KeyData)
	require.True(t, cfg.TLS.Insecure)
	require.NotContains(t, cfg.String(), "prod-token")

	cfg, err = LoadFile(p, "tokenfile")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "token"), cfg.BearerTokenFile)
}

func TestErrorsNameFileAndField(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, context, field, msg string
	}{
		{"unknown context", fullKubeconfig, "nope", `contexts["nope"]`, "no such context"},
		{"no current context", "clusters: []", "", "current-context", "not set"},
		{"missing server", "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, cluster: {}}]",
			"", `clusters["k"].cluster.server`, "missing"},
		{"unknown cluster", "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]", "",
			`contexts["c"].context.cluster`, `no cluster named "k"`},
		{"unknown user", "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: https://x}}]",
			"", `contexts["c"].context.user`, `no user named "u"`},
		{"bad base64", "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: https://x}}]\n" +
			"users: [{name: u, user: {client-key-data: '!!!SECRET'}}]", "", `users["u"].user.client-key-data`, "not valid base64"},
		{"missing CA file", "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, cluster: {server: https://x, certificate-authority: missing-ca.crt}}]",
			"", `clusters["k"].cluster.certificate-authority`, "missing-ca.crt"},
		{"missing key file", "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: https://x}}]\n" +
			"users: [{name: u, user: {client-key: nokey.pem}}]", "", `users["u"].user.client-key`, "nokey.pem"},
		{"exec plugin", "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: https://x}}]\n" +
			"users: [{name: u, user: {exec: {command: aws-iam-authenticator, apiVersion: client.authentication.k8s.io/v1alpha1}}}]",
			"", `users["u"].user.exec.apiVersion`, `credential plugin "aws-iam-authenticator": apiVersion "client.authentication.k8s.io/v1alpha1" is not supported`},
		{"exec without command", "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: https://x}}]\n" +
			"users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1}}}]",
			"", `users["u"].user.exec.command`, "missing"},
		{"bad server", "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, cluster: {server: 'ftp://x'}}]",
			"", `clusters["k"].cluster.server`, "scheme"},
		{"malformed yaml", "clusters: [", "", "", "yaml"},
		{"wrong type", "clusters: [{name: k, cluster: {insecure-skip-tls-verify: maybe}}]", "", "", "line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "-"), tc.content)
			_, err := LoadFile(p, tc.context)
			var ke *Error
			require.True(t, errors.As(err, &ke), "%v", err)
			require.Equal(t, p, ke.File)
			require.Equal(t, tc.field, ke.Field)
			require.ErrorContains(t, err, tc.msg)
			require.Contains(t, err.Error(), p)
			require.NotContains(t, err.Error(), "SECRET")
		})
	}
	_, err := LoadFile(filepath.Join(dir, "absent"), "")
	require.ErrorIs(t, err, os.ErrNotExist)
	require.ErrorContains(t, err, "absent")
}

func TestKubeconfigListMergesFirstWins(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a/config", `
clusters: [{name: shared, cluster: {server: https://from-a}}]
contexts: [{name: ctx-a, context: {cluster: shared, user: u}}]
users: [{name: u, user: {tokenFile: tok}}]
`)
	writeFile(t, dir, "a/tok", "x")
	b := writeFile(t, dir, "b/config", `
current-context: ctx-b
clusters: [{name: shared, cluster: {server: https://from-b}}, {name: only-b, cluster: {server: https://only-b}}]
contexts: [{name: ctx-b, context: {cluster: only-b, user: u, namespace: nb}}, {name: ctx-a, context: {cluster: only-b}}]
users: [{name: u, user: {token: from-b}}]
`)
	missing := filepath.Join(dir, "missing")
	env := loadEnv{getenv: mapEnv(map[string]string{"KUBECONFIG": strings.Join([]string{missing, a, b}, string(os.PathListSeparator))}),
		home: func() (string, error) { return "", errors.New("no home") }, inCluster: apiclient.InCluster}
	cfg, err := load("", "", env)
	require.NoError(t, err)
	require.Equal(t, "https://only-b", cfg.Host, "current-context from the first file that sets it")
	require.Equal(t, "nb", cfg.Namespace)
	require.Equal(t, filepath.Join(dir, "a/tok"), cfg.BearerTokenFile, "user u from a, its path relative to a's folder")

	cfg, err = loadFiles([]string{a, b}, "ctx-a", true)
	require.NoError(t, err)
	require.Equal(t, "https://from-a", cfg.Host, "context ctx-a and cluster shared from a")
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadOrder(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	homeCfg := writeFile(t, home, ".kube/config", "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, cluster: {server: https://home}}]")
	explicit := writeFile(t, dir, "explicit", strings.ReplaceAll(readFile(t, homeCfg), "home", "explicit"))
	envCfg := writeFile(t, dir, "env", strings.ReplaceAll(readFile(t, homeCfg), "home", "env"))
	inClusterEnv := map[string]string{"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}
	// inCluster stands for apiclient.InCluster (tested in apiclient): in
	// a pod when the environment says so.
	inCluster := func(env map[string]string) func() (*apiclient.Config, error) {
		return func() (*apiclient.Config, error) {
			if env["KUBERNETES_SERVICE_HOST"] == "" {
				return nil, apiclient.ErrNotInCluster
			}
			return &apiclient.Config{Host: "https://in-cluster", Source: "in-cluster"}, nil
		}
	}
	noHome := func() (string, error) { return "", errors.New("no home") }
	for _, tc := range []struct {
		name, explicit, master string
		env                    map[string]string
		home                   func() (string, error)
		host                   string
	}{
		{"explicit first", explicit, "", map[string]string{"KUBECONFIG": envCfg}, func() (string, error) { return home, nil }, "https://explicit"},
		{"then KUBECONFIG", "", "", map[string]string{"KUBECONFIG": envCfg}, func() (string, error) { return home, nil }, "https://env"},
		{"then ~/.kube/config", "", "", inClusterEnv, func() (string, error) { return home, nil }, "https://home"},
		{"then in-cluster", "", "", inClusterEnv, noHome, "https://in-cluster"},
		{"master overrides", "", "https://master", inClusterEnv, noHome, "https://master"},
		{"master alone", "", "https://master", nil, noHome, "https://master"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := load(tc.explicit, tc.master, loadEnv{getenv: mapEnv(tc.env), home: tc.home, inCluster: inCluster(tc.env)})
			require.NoError(t, err)
			require.Equal(t, tc.host, cfg.Host)
		})
	}
	_, err := load("", "", loadEnv{getenv: mapEnv(nil), home: noHome, inCluster: inCluster(nil)})
	require.ErrorIs(t, err, apiclient.ErrNotInCluster)
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func FuzzKubeconfig(f *testing.F) {
	f.Add([]byte(fullKubeconfig), "")
	f.Add([]byte(fullKubeconfig), "prod")
	f.Add([]byte("current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, cluster: {server: https://x}}]"), "c")
	f.Add([]byte("users: [{name: u, user: {client-key-data: "+base64.StdEncoding.EncodeToString([]byte("k"))+"}}]"), "")
	f.Fuzz(func(t *testing.T, data []byte, context string) {
		kc, err := parseKubeconfig(data, "/fuzz/config")
		if err != nil {
			requireError(t, err)
			return
		}
		cfg, err := resolve([]*kubeconfig{kc}, context)
		if err != nil {
			requireError(t, err)
			return
		}
		if cfg.Host == "" {
			t.Fatal("a resolved config has no host")
		}
	})
}

func requireError(t *testing.T, err error) {
	t.Helper()
	var ke *Error
	if !errors.As(err, &ke) || ke.File != "/fuzz/config" {
		t.Fatalf("error does not name the file: %v", err)
	}
}

func TestExecPluginRelativeCommand(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "bin/plugin.sh", "#!/bin/sh\n")
	p := writeFile(t, dir, "config", `current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: https://x}}]
users: [{name: u, user: {exec: {command: ./bin/plugin.sh, args: [a, b], env: [{name: K, value: V}], apiVersion: client.authentication.k8s.io/v1, installHint: "install it"}}}]
`)
	cfg, err := LoadFile(p, "")
	require.NoError(t, err)
	require.Equal(t, &apiclient.ExecConfig{Command: filepath.Join(dir, "bin/plugin.sh"), Args: []string{"a", "b"},
		Env: []apiclient.ExecEnvVar{{Name: "K", Value: "V"}}, APIVersion: apiclient.ExecV1, InstallHint: "install it"}, cfg.Exec)
}
