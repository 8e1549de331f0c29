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
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

var serial atomic.Int64

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial.Add(1)), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{cert: cert, key: key, pem: pemCert(der)}
}

// leaf is what a certificate the CA issues says about itself.
type leaf struct {
	dns       []string
	ips       []net.IP
	notBefore time.Time
	notAfter  time.Time
	usage     x509.ExtKeyUsage
}

// issue signs a certificate for l and returns it as a tls.Certificate and
// as PEM (certificate, key).
func (ca *testCA) issue(t *testing.T, l leaf) (tls.Certificate, []byte, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	if l.notBefore.IsZero() {
		l.notBefore = time.Now().Add(-time.Hour)
	}
	if l.notAfter.IsZero() {
		l.notAfter = time.Now().Add(time.Hour)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial.Add(1)), Subject: pkix.Name{CommonName: "leaf"},
		DNSNames: l.dns, IPAddresses: l.ips, NotBefore: l.notBefore, NotAfter: l.notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{l.usage}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	certPEM, keyPEM := pemCert(der), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	return pair, certPEM, keyPEM
}

// tlsServerWith serves a pod over TLS with cert, requiring a client
// certificate from clientCA when it is set. It counts handshakes, so tests
// can see that a failed verification is not retried.
func tlsServerWith(t *testing.T, cert tls.Certificate, clientCA *testCA) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var handshakes atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"metadata":{"name":"x"}}`))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert},
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) { handshakes.Add(1); return nil, nil }}
	if clientCA != nil {
		pool := x509.NewCertPool()
		pool.AddCert(clientCA.cert)
		srv.TLS.ClientAuth, srv.TLS.ClientCAs = tls.RequireAndVerifyClientCert, pool
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are the point
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &handshakes
}

var loopback = []net.IP{net.IPv4(127, 0, 0, 1)}

func TestTLSVerificationFailuresAreClearAndNotRetried(t *testing.T) {
	ca, otherCA := newCA(t, "cluster-ca"), newCA(t, "someone-else")
	good, _, _ := ca.issue(t, leaf{ips: loopback, usage: x509.ExtKeyUsageServerAuth})
	wrongHost, _, _ := ca.issue(t, leaf{dns: []string{"api.other.test"}, usage: x509.ExtKeyUsageServerAuth})
	expired, _, _ := ca.issue(t, leaf{ips: loopback, usage: x509.ExtKeyUsageServerAuth,
		notBefore: time.Now().Add(-48 * time.Hour), notAfter: time.Now().Add(-24 * time.Hour)})
	notYet, _, _ := ca.issue(t, leaf{ips: loopback, usage: x509.ExtKeyUsageServerAuth,
		notBefore: time.Now().Add(24 * time.Hour), notAfter: time.Now().Add(48 * time.Hour)})
	clientOnly, _, _ := ca.issue(t, leaf{ips: loopback, usage: x509.ExtKeyUsageClientAuth})
	for _, tc := range []struct {
		name    string
		cert    tls.Certificate
		trust   []byte
		ok      bool
		isError func(error) bool
	}{
		{"the cluster's CA", good, ca.pem, true, nil},
		{"a different CA", good, otherCA.pem, false, isUnknownAuthority},
		{"no CA: system roots", good, nil, false, isUnknownAuthority},
		{"wrong host name", wrongHost, ca.pem, false, isHostname},
		{"expired certificate", expired, ca.pem, false, isExpired},
		{"certificate not valid yet", notYet, ca.pem, false, isExpired},
		{"a client certificate presented as a server's", clientOnly, ca.pem, false, isIncompatibleUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, handshakes := tlsServerWith(t, tc.cert, nil)
			c, s := newClient(t, &apiclient.Config{Host: srv.URL, QPS: -1, TLS: apiclient.TLSConfig{CAData: tc.trust}})
			_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.True(t, tc.isError(err), "%T: %v", errors.Unwrap(err), err)
			require.Empty(t, s.Delays(), "a certificate that does not verify will not verify on a retry")
			require.Equal(t, int32(1), handshakes.Load())
			_, err = apiclient.Watch[pod](context.Background(), c, podsRef, apiclient.WatchOptions{Websocket: websocket.Dialer{}})
			require.True(t, tc.isError(err), "websocket watches verify the same way: %v", err)
		})
	}
}

func isUnknownAuthority(err error) bool {
	var e x509.UnknownAuthorityError
	return errors.As(err, &e)
}

func isHostname(err error) bool {
	var e x509.HostnameError
	return errors.As(err, &e)
}

func isInvalid(err error, reason x509.InvalidReason) bool {
	var e x509.CertificateInvalidError
	return errors.As(err, &e) && e.Reason == reason
}

func isExpired(err error) bool { return isInvalid(err, x509.Expired) }

func isIncompatibleUsage(err error) bool { return isInvalid(err, x509.IncompatibleUsage) }

func TestTLSServerNameOverridesTheHost(t *testing.T) {
	// Connecting by IP to a certificate issued for a name works only when
	// the config names it, as with kubeconfig's tls-server-name.
	ca := newCA(t, "cluster-ca")
	named, _, _ := ca.issue(t, leaf{dns: []string{"kubernetes.default.svc"}, usage: x509.ExtKeyUsageServerAuth})
	srv, _ := tlsServerWith(t, named, nil)
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, QPS: -1,
		TLS: apiclient.TLSConfig{CAData: ca.pem, ServerName: "kubernetes.default.svc"}})
	_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.NoError(t, err)
}

func TestClientCertificates(t *testing.T) {
	serverCA, clientCA, otherCA := newCA(t, "server-ca"), newCA(t, "client-ca"), newCA(t, "other-ca")
	serving, _, _ := serverCA.issue(t, leaf{ips: loopback, usage: x509.ExtKeyUsageServerAuth})
	_, goodCert, goodKey := clientCA.issue(t, leaf{dns: []string{"admin"}, usage: x509.ExtKeyUsageClientAuth})
	_, strangerCert, strangerKey := otherCA.issue(t, leaf{dns: []string{"admin"}, usage: x509.ExtKeyUsageClientAuth})
	_, expiredCert, expiredKey := clientCA.issue(t, leaf{dns: []string{"admin"}, usage: x509.ExtKeyUsageClientAuth,
		notBefore: time.Now().Add(-48 * time.Hour), notAfter: time.Now().Add(-24 * time.Hour)})
	srv, _ := tlsServerWith(t, serving, clientCA)
	for _, tc := range []struct {
		name      string
		cert, key []byte
		ok        bool
	}{
		{"signed by the CA the server trusts", goodCert, goodKey, true},
		{"no client certificate", nil, nil, false},
		{"signed by another CA", strangerCert, strangerKey, false},
		{"expired", expiredCert, expiredKey, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newClient(t, &apiclient.Config{Host: srv.URL, QPS: -1,
				TLS: apiclient.TLSConfig{CAData: serverCA.pem, CertData: tc.cert, KeyData: tc.key}})
			_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.Error(t, err, "the server must refuse the handshake")
			if tc.key != nil {
				require.NotContains(t, err.Error(), string(tc.key))
			}
		})
	}
}
