package apiclient

import (
	"fmt"
	"time"
)

// Config says where the API server is and how to talk to it. Its zero value is
// not usable (Host is required); every other field's zero value means the
// default written next to it.
//
// A Config never prints its bearer token: String, GoString and every fmt verb
// show "[redacted]" in its place, so a Config can go into a log line or an
// error message safely.
type Config struct {
	// Host is the server's base URL, "https://10.0.0.1:6443". A bare
	// "host:port" means https.
	Host string
	// BearerToken is sent as "Authorization: Bearer …".
	BearerToken string
	// BearerTokenFile is read for the token instead of BearerToken, and read
	// again when the file changes (projected service-account tokens rotate).
	BearerTokenFile string
	// Exec runs a credential plugin for a token and/or client certificate
	// when neither BearerToken nor BearerTokenFile is set. nil means none.
	Exec *ExecConfig
	// TLS configures server verification and client certificates.
	TLS TLSConfig
	// QPS and Burst limit the client's request rate, as client-go's do.
	// 0 means the defaults, 5 QPS with a burst of 10; a negative QPS turns
	// the limit off.
	QPS   float32
	Burst int
	// Timeout bounds each non-watch request, body included. 0 means no
	// timeout beyond the request's context. Watches are never timed out by
	// the client: their length is set with WatchOptions.TimeoutSeconds.
	Timeout time.Duration
	// DisableCompression stops the client from asking for gzip replies.
	// kube-apiserver compresses every reply over 128 KiB (large LISTs, and
	// streaming lists since v1.35) for a client that accepts gzip: on
	// loopback and fast in-cluster links inflating costs more CPU than the
	// bytes it saves cost time. client-go's rest.Config has the same field.
	DisableCompression bool
	// UserAgent is sent with every request; "" means "zerokube".
	UserAgent string
	// AllowInsecureBearerToken lets a bearer token travel over plain http to
	// a host that is not a loopback address. Off by default: the token would
	// cross the network in the clear.
	AllowInsecureBearerToken bool
	// Namespace is the default namespace of the kubeconfig context or of the
	// in-cluster service account. The client itself does not use it.
	Namespace string
	// Source names where the config came from (a kubeconfig path and context,
	// or "in-cluster"), for error messages.
	Source string
}

// TLSConfig holds the TLS settings of a Config. Each of the CA, certificate and
// key comes from a file or from PEM data; data wins when both are set.
type TLSConfig struct {
	CAFile   string
	CAData   []byte
	CertFile string
	CertData []byte
	KeyFile  string
	KeyData  []byte
	// ServerName overrides the name checked against the server's certificate.
	ServerName string
	// Insecure skips verification of the server's certificate. Tests only.
	Insecure bool
}

const redacted = "[redacted]"

// String describes c without its secrets.
func (c *Config) String() string {
	if c == nil {
		return "<nil>"
	}
	exec := "nil"
	if c.Exec != nil {
		// Only the command: arguments and environment may hold secrets.
		exec = fmt.Sprintf("{Command:%q, APIVersion:%q}", c.Exec.Command, c.Exec.APIVersion)
	}
	return fmt.Sprintf("apiclient.Config{Host:%q, BearerToken:%s, BearerTokenFile:%q, Exec:%s, TLS:%s, "+
		"QPS:%g, Burst:%d, Timeout:%s, DisableCompression:%t, UserAgent:%q, AllowInsecureBearerToken:%t, Namespace:%q, Source:%q}",
		c.Host, tokenShown(c.BearerToken), c.BearerTokenFile, exec, c.TLS.String(),
		c.QPS, c.Burst, c.Timeout, c.DisableCompression, c.UserAgent, c.AllowInsecureBearerToken, c.Namespace, c.Source)
}

// GoString is String, so %#v does not print the token either.
func (c *Config) GoString() string { return c.String() }

// Format makes every verb (%v, %+v, %s, %q, …) print String, including on a
// Config value rather than a pointer.
func (c Config) Format(f fmt.State, verb rune) { _, _ = fmt.Fprint(f, c.String()) }

// String describes t; the private key's data is never shown.
func (t TLSConfig) String() string {
	return fmt.Sprintf("{CAFile:%q, CAData:%d bytes, CertFile:%q, CertData:%d bytes, KeyFile:%q, KeyData:%s, ServerName:%q, Insecure:%t}",
		t.CAFile, len(t.CAData), t.CertFile, len(t.CertData), t.KeyFile, dataShown(t.KeyData), t.ServerName, t.Insecure)
}

// GoString is String, so %#v does not print the key.
func (t TLSConfig) GoString() string { return t.String() }

func tokenShown(tok string) string {
	if tok == "" {
		return `""`
	}
	return redacted
}

func dataShown(b []byte) string {
	if len(b) == 0 {
		return "none"
	}
	return redacted
}
