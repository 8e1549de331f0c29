package apiclient

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// buildTLS turns a TLSConfig into a *tls.Config. Verification stays on unless
// Insecure is set; without a CA the system roots are used.
func buildTLS(t *TLSConfig) (*tls.Config, error) {
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.ServerName,
		InsecureSkipVerify: t.Insecure, //nolint:gosec // opt-in, documented as for tests
	}
	ca, err := dataOrFile(t.CAData, t.CAFile, "CA")
	if err != nil {
		return nil, err
	}
	if len(ca) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("apiclient: TLS CA%s holds no PEM certificate", fromWhere(t.CAData, t.CAFile))
		}
		cfg.RootCAs = pool
	}
	cert, err := dataOrFile(t.CertData, t.CertFile, "client certificate")
	if err != nil {
		return nil, err
	}
	key, err := dataOrFile(t.KeyData, t.KeyFile, "client key")
	if err != nil {
		return nil, err
	}
	switch {
	case len(cert) > 0 && len(key) > 0:
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			// The tls error never quotes the key itself.
			return nil, fmt.Errorf("apiclient: TLS client certificate%s and key%s: %w",
				fromWhere(t.CertData, t.CertFile), fromWhere(t.KeyData, t.KeyFile), err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case len(cert) > 0:
		return nil, errors.New("apiclient: TLS client certificate given without a client key")
	case len(key) > 0:
		return nil, errors.New("apiclient: TLS client key given without a client certificate")
	}
	return cfg, nil
}

// dataOrFile returns data, or the contents of file when data is empty.
func dataOrFile(data []byte, file, what string) ([]byte, error) {
	if len(data) > 0 || file == "" {
		return data, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("apiclient: TLS %s: %w", what, err)
	}
	return b, nil
}

func fromWhere(data []byte, file string) string {
	if len(data) == 0 && file != "" {
		return fmt.Sprintf(" (file %s)", file)
	}
	return ""
}
