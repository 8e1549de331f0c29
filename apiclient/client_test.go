package apiclient_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock/clocktest"
)

const secretToken = "s3cr3t-t0ken-value"

func TestConfigNeverPrintsTheToken(t *testing.T) {
	cfg := &apiclient.Config{Host: "https://k", BearerToken: secretToken,
		TLS: apiclient.TLSConfig{KeyData: []byte("-----BEGIN PRIVATE KEY----- secret-key")}}
	for _, s := range []string{
		cfg.String(), cfg.GoString(),
		fmt.Sprint(cfg), fmt.Sprint(*cfg),
		fmt.Sprintf("%v %+v %#v %s %q", cfg, cfg, cfg, cfg, cfg),
		fmt.Sprintf("%v %+v %#v", *cfg, *cfg, *cfg),
		fmt.Sprintf("%#v", cfg.TLS),
		fmt.Errorf("wrapped: %v", cfg).Error(),
	} {
		require.NotContains(t, s, secretToken)
		require.NotContains(t, s, "secret-key")
		require.Contains(t, s, "[redacted]")
	}
}

func TestTokenNeverInErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "Bearer "+secretToken, r.Header.Get("Authorization"))
		writeStatus(w, 401, "Unauthorized", "Unauthorized", "")
	}))
	t.Cleanup(srv.Close)
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, BearerToken: secretToken, QPS: -1})
	_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.Error(t, err)
	require.NotContains(t, err.Error(), secretToken)
}

func TestBearerTokenOverPlainHTTP(t *testing.T) {
	for _, tc := range []struct {
		host  string
		allow bool
		ok    bool
	}{
		{"http://10.0.0.1:8080", false, false},
		{"http://api.example.com", false, false},
		{"http://10.0.0.1:8080", true, true},
		{"http://127.0.0.1:8080", false, true},
		{"http://[::1]:8080", false, true},
		{"http://localhost:8080", false, true},
		{"https://10.0.0.1", false, true},
	} {
		_, err := apiclient.New(&apiclient.Config{Host: tc.host, BearerToken: secretToken, AllowInsecureBearerToken: tc.allow})
		require.Equal(t, tc.ok, err == nil, "%s: %v", tc.host, err)
		if err != nil {
			require.NotContains(t, err.Error(), secretToken)
			require.Contains(t, err.Error(), "plain http")
		}
	}
}

func TestBadHosts(t *testing.T) {
	for _, h := range []string{"", "ftp://x", "http://", "https://%zz"} {
		_, err := apiclient.New(&apiclient.Config{Host: h})
		require.Error(t, err, h)
	}
	_, err := apiclient.New(nil)
	require.Error(t, err)
}

func TestTokenFileIsReadAgainWhenItChanges(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(file, []byte("first\n"), 0o600))
	seen := make(chan string, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("Authorization")
		_, _ = w.Write([]byte(`{"metadata":{"name":"x"}}`))
	}))
	t.Cleanup(srv.Close)
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, BearerTokenFile: file, BearerToken: "ignored", QPS: -1})
	get := func() string {
		_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
		require.NoError(t, err)
		return <-seen
	}
	require.Equal(t, "Bearer first", get())
	require.NoError(t, os.WriteFile(file, []byte("second-token"), 0o600))
	require.NoError(t, os.Chtimes(file, time.Now(), time.Now().Add(time.Hour)))
	require.Equal(t, "Bearer second-token", get())
	require.NoError(t, os.Remove(file))
	require.Equal(t, "Bearer second-token", get(), "a vanished file keeps the last token")
}

func TestMissingTokenFileFailsEarly(t *testing.T) {
	_, err := apiclient.New(&apiclient.Config{Host: "https://k", BearerTokenFile: "/nonexistent/token"})
	require.ErrorContains(t, err, "/nonexistent/token")
}

func TestUserAgentAndAccept(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "my-agent/1", r.UserAgent())
		assert.Equal(t, "application/json", r.Header.Get("Accept"))
		_, _ = w.Write([]byte(`{"metadata":{"name":"x"}}`))
	}))
	t.Cleanup(srv.Close)
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, UserAgent: "my-agent/1"})
	_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.NoError(t, err)
}

func TestHostPathPrefixIsKept(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "/k8s/clusters/c-1/api/v1/namespaces/default/pods/x", r.URL.Path)
		_, _ = w.Write([]byte(`{"metadata":{"name":"x"}}`))
	}))
	t.Cleanup(srv.Close)
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL + "/k8s/clusters/c-1/"})
	_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.NoError(t, err)
}

func TestRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, Timeout: 50 * time.Millisecond})
	_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// tlsServer starts a TLS server that answers a pod, optionally requiring
// a client certificate signed by clientCA.
func tlsServer(t *testing.T, clientCA *x509.Certificate) *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"metadata":{"name":"x"}}`))
	}))
	if clientCA != nil {
		pool := x509.NewCertPool()
		pool.AddCert(clientCA)
		srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func pemCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// selfSigned makes a client certificate and its PEM key.
func selfSigned(t *testing.T) (*x509.Certificate, []byte, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	return cert, pemCert(der), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

func TestTLS(t *testing.T) {
	clientCert, certPEM, keyPEM := selfSigned(t)
	plain := tlsServer(t, nil)
	mtls := tlsServer(t, clientCert)
	caPEM := pemCert(plain.Certificate().Raw)
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.crt")
	require.NoError(t, os.WriteFile(caFile, caPEM, 0o600))
	certFile, keyFile := filepath.Join(dir, "c.crt"), filepath.Join(dir, "c.key")
	require.NoError(t, os.WriteFile(certFile, certPEM, 0o600))
	require.NoError(t, os.WriteFile(keyFile, keyPEM, 0o600))
	for _, tc := range []struct {
		name   string
		srv    *httptest.Server
		tls    apiclient.TLSConfig
		newErr string
		getErr string
	}{
		{"verification on by default", plain, apiclient.TLSConfig{}, "", "certificate"},
		{"CA data", plain, apiclient.TLSConfig{CAData: caPEM}, "", ""},
		{"CA file", plain, apiclient.TLSConfig{CAFile: caFile}, "", ""},
		{"server name matches", plain, apiclient.TLSConfig{CAData: caPEM, ServerName: "example.com"}, "", ""},
		{"server name differs", plain, apiclient.TLSConfig{CAData: caPEM, ServerName: "other.test"}, "", "certificate"},
		{"insecure", plain, apiclient.TLSConfig{Insecure: true}, "", ""},
		{"missing CA file", plain, apiclient.TLSConfig{CAFile: filepath.Join(dir, "nope.crt")}, "nope.crt", ""},
		{"CA not PEM", plain, apiclient.TLSConfig{CAData: []byte("junk")}, "no PEM certificate", ""},
		{"client cert data", mtls, apiclient.TLSConfig{Insecure: true, CertData: certPEM, KeyData: keyPEM}, "", ""},
		{"client cert files", mtls, apiclient.TLSConfig{Insecure: true, CertFile: certFile, KeyFile: keyFile}, "", ""},
		{"client cert required", mtls, apiclient.TLSConfig{Insecure: true}, "", "certificate"},
		{"missing key file", mtls, apiclient.TLSConfig{CertFile: certFile, KeyFile: filepath.Join(dir, "nope.key")}, "nope.key", ""},
		{"cert without key", mtls, apiclient.TLSConfig{CertData: certPEM}, "without a client key", ""},
		{"key without cert", mtls, apiclient.TLSConfig{KeyData: keyPEM}, "without a client certificate", ""},
		{"mismatched pair", mtls, apiclient.TLSConfig{CertData: caPEM, KeyData: keyPEM}, "client certificate", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := apiclient.NewWithOptions(&apiclient.Config{Host: tc.srv.URL, TLS: tc.tls}, apiclient.Options{})
			if tc.newErr != "" {
				require.ErrorContains(t, err, tc.newErr)
				return
			}
			require.NoError(t, err)
			t.Cleanup(c.CloseIdleConnections)
			_, err = apiclient.Get[pod](context.Background(), c, podsRef, "x")
			if tc.getErr != "" {
				require.ErrorContains(t, err, tc.getErr)
				return
			}
			require.NoError(t, err)
		})
	}
}

func TestRateLimitAppliesToEveryRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"metadata":{"name":"x"}}`))
	}))
	t.Cleanup(srv.Close)
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, QPS: 0.001, Burst: 1})
	_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.NoError(t, err, "the burst lets the first request through")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = apiclient.Get[pod](ctx, c, podsRef, "x")
	require.ErrorContains(t, err, "rate limiter", "the next token is 1000 s away, past the deadline")
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestTheRateLimiterWaitsOnTheClientsClock(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"metadata":{"name":"x"}}`))
	}))
	t.Cleanup(srv.Close)
	clk := clocktest.New()
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: srv.URL, QPS: 0.001, Burst: 1}, apiclient.Options{Clock: clk})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	_, err = apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.NoError(t, err, "the burst lets the first request through")
	done := make(chan error, 1)
	go func() { _, err := apiclient.Get[pod](context.Background(), c, podsRef, "x"); done <- err }()
	require.NoError(t, clk.AwaitTimers(t.Context(), 1))
	require.Len(t, clk.Delays(), 1)
	require.InDelta(t, 1000*time.Second, clk.Delays()[0], float64(time.Millisecond), "one token per 1000 s")
	clk.Advance(1000 * time.Second)
	require.NoError(t, <-done)
}

func TestExecPluginClientCertificate(t *testing.T) {
	clientCert, certPEM, keyPEM := selfSigned(t)
	srv := tlsServer(t, clientCert)
	dir := t.TempDir()
	cred, err := json.Marshal(map[string]any{"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential",
		"status": map[string]string{"clientCertificateData": string(certPEM), "clientKeyData": string(keyPEM)}})
	require.NoError(t, err)
	credFile := filepath.Join(dir, "cred.json")
	require.NoError(t, os.WriteFile(credFile, cred, 0o600))
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, TLS: apiclient.TLSConfig{Insecure: true},
		Exec: &apiclient.ExecConfig{Command: "/bin/cat", Args: []string{credFile}, APIVersion: "client.authentication.k8s.io/v1beta1"}})
	p, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.NoError(t, err)
	require.Equal(t, "x", p.Name)
}
