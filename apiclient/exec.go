package apiclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/clock"
)

// ExecConfig runs a credential plugin, the kubeconfig's users[].user.exec:
// a program that prints an ExecCredential (client.authentication.k8s.io/v1
// or v1beta1) holding a bearer token and/or a client certificate. Cloud
// providers' logins (gke-gcloud-auth-plugin, aws eks get-token, kubelogin)
// work this way.
type ExecConfig struct {
	Command    string
	Args       []string
	Env        []ExecEnvVar
	APIVersion string
	// InstallHint is shown when Command cannot be found.
	InstallHint string
}

// ExecEnvVar is one environment variable given to a credential plugin, on
// top of the client's own environment.
type ExecEnvVar struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

// The ExecCredential API versions this client speaks: ExecConfig.APIVersion
// is one of them.
const (
	ExecV1      = "client.authentication.k8s.io/v1"
	ExecV1beta1 = "client.authentication.k8s.io/v1beta1"
)

// execTimeout bounds one run of a plugin: it may call a cloud API, but a
// plugin waiting on a terminal prompt must not hang requests forever.
const execTimeout = time.Minute

// execRefreshMargin renews a credential this long before it expires, so a
// request never leaves with a token about to lapse.
const execRefreshMargin = 30 * time.Second

// execCredential is the plugin's output.
type execCredential struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Status     *struct {
		Token                 string     `json:"token"`
		ExpirationTimestamp   *time.Time `json:"expirationTimestamp"`
		ClientCertificateData string     `json:"clientCertificateData"`
		ClientKeyData         string     `json:"clientKeyData"`
	} `json:"status"`
}

// credential is what a plugin run yields.
type credential struct {
	token  string
	cert   *tls.Certificate // nil when the plugin gave none
	expiry time.Time        // zero: valid until the server answers 401
}

// execPlugin runs a plugin and caches its credential until it expires or is
// invalidated by a 401.
type execPlugin struct {
	cfg   ExecConfig
	clock clock.Clock // tells when the credential is due for renewal

	mu   sync.Mutex // guards cred; held while the plugin runs, so one run serves all waiters
	cred *credential
}

func newExecPlugin(cfg ExecConfig, clk clock.Clock) (*execPlugin, error) {
	if cfg.Command == "" {
		return nil, errors.New("apiclient: exec credential plugin: no command")
	}
	if cfg.APIVersion != ExecV1 && cfg.APIVersion != ExecV1beta1 {
		return nil, fmt.Errorf("apiclient: exec credential plugin %q: apiVersion %q is not supported (want %s or %s)",
			cfg.Command, cfg.APIVersion, ExecV1, ExecV1beta1)
	}
	return &execPlugin{cfg: cfg, clock: clk}, nil
}

// get returns a valid credential, running the plugin when none is cached.
func (p *execPlugin) get(ctx context.Context) (*credential, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.cred; c != nil && (c.expiry.IsZero() || p.clock.Now().Add(execRefreshMargin).Before(c.expiry)) {
		return c, nil
	}
	c, err := p.run(ctx)
	if err != nil {
		return nil, err
	}
	p.cred = c
	return c, nil
}

// invalidate drops the cached credential after the server refused the
// token sent, so the next get runs the plugin again. A credential obtained
// since sent was is kept: it has not been refused yet, and many requests
// refused at once must not each run the plugin.
func (p *execPlugin) invalidate(sent string) {
	p.mu.Lock()
	if p.cred != nil && p.cred.token == sent {
		p.cred = nil
	}
	p.mu.Unlock()
}

// run executes the plugin once. Errors name the plugin and quote the start
// of its stderr, never its stdout (which holds the credential).
func (p *execPlugin) run(ctx context.Context) (*credential, error) {
	ctx, cancel := context.WithTimeout(ctx, execTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.cfg.Command, p.cfg.Args...)
	cmd.Env = os.Environ()
	for _, e := range p.cfg.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	info := fmt.Sprintf(`{"apiVersion":%q,"kind":"ExecCredential","spec":{"interactive":false}}`, p.cfg.APIVersion)
	cmd.Env = append(cmd.Env, "KUBERNETES_EXEC_INFO="+info)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	fail := func(format string, args ...any) error {
		return fmt.Errorf("apiclient: exec credential plugin %q: %s", p.cfg.Command, fmt.Sprintf(format, args...))
	}
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) && p.cfg.InstallHint != "" {
			return nil, fail("%v; %s", err, p.cfg.InstallHint)
		}
		return nil, fail("%v (stderr: %q)", err, excerpt(stderr.Bytes()))
	}
	var out execCredential
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, fail("its output is not an ExecCredential: %v", err)
	}
	switch {
	case out.Kind != "ExecCredential" || out.APIVersion != p.cfg.APIVersion:
		return nil, fail("it printed %s %q, want ExecCredential %q", out.Kind, out.APIVersion, p.cfg.APIVersion)
	case out.Status == nil || (out.Status.Token == "" && out.Status.ClientCertificateData == ""):
		return nil, fail("its ExecCredential has no token and no client certificate")
	case (out.Status.ClientCertificateData == "") != (out.Status.ClientKeyData == ""):
		return nil, fail("its ExecCredential has only one of clientCertificateData and clientKeyData")
	}
	c := &credential{token: out.Status.Token}
	if out.Status.ExpirationTimestamp != nil {
		c.expiry = *out.Status.ExpirationTimestamp
	}
	if out.Status.ClientCertificateData != "" {
		pair, err := tls.X509KeyPair([]byte(out.Status.ClientCertificateData), []byte(out.Status.ClientKeyData))
		if err != nil {
			return nil, fail("its client certificate: %v", err)
		}
		c.cert = &pair
	}
	return c, nil
}

// clientCertificate serves tls.Config.GetClientCertificate from the plugin.
func (p *execPlugin) clientCertificate(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
	c, err := p.get(cri.Context())
	if err != nil {
		return nil, err
	}
	if c.cert == nil {
		return &tls.Certificate{}, nil // no certificate: the server decides
	}
	return c.cert, nil
}
