package kubetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// files are the credentials written into the server's directory.
type files struct {
	cert, key    string // serving certificate (self-signed, also the CA)
	saPub, saKey string // service-account token signing keys
	tokens       string // --token-auth-file
	caPEM        []byte
	token        string
}

// writeFiles generates a self-signed serving certificate for 127.0.0.1 and
// localhost, a service-account key pair and a token file holding one admin
// token (group system:masters, which RBAC lets do everything).
func writeFiles(dir string) (files, error) {
	f := files{
		cert: filepath.Join(dir, "serving.crt"), key: filepath.Join(dir, "serving.key"),
		saPub: filepath.Join(dir, "sa.pub"), saKey: filepath.Join(dir, "sa.key"),
		tokens: filepath.Join(dir, "tokens.csv"),
	}
	certPEM, keyPEM, err := selfSigned()
	if err != nil {
		return f, err
	}
	f.caPEM = certPEM
	saPub, saKey, err := keyPair()
	if err != nil {
		return f, err
	}
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	f.token = fmt.Sprintf("%x", tok)
	for path, data := range map[string][]byte{
		f.cert: certPEM, f.key: keyPEM, f.saPub: saPub, f.saKey: saKey,
		f.tokens: []byte(f.token + `,zerokube-admin,zerokube-admin,"system:masters"` + "\n"),
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return f, fmt.Errorf("kubetest: %w", err)
		}
	}
	return f, nil
}

func selfSigned() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("kubetest: serving key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "zerokube-kubetest"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("kubetest: serving certificate: %w", err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("kubetest: serving key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}

func keyPair() (pubPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("kubetest: service-account key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, nil, fmt.Errorf("kubetest: service-account key: %w", err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("kubetest: service-account key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}
