package apiclient

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// maxErrorBody bounds how much of an error reply is read: a Status is small,
// and an HTML page from a proxy is only quoted.
const maxErrorBody = 1 << 20

// excerptLen is how much of a body that is not a Status goes into the error.
const excerptLen = 200

// ErrHTTPToHTTPS is in the error of a request sent over plain HTTP to a
// server that speaks only HTTPS: Go's TLS servers (kube-apiserver among
// them) answer such a request with a bare 400 "Client sent an HTTP request
// to an HTTPS server." Retrying cannot help; the URL must say https://.
var ErrHTTPToHTTPS = errors.New("apiclient: the server speaks HTTPS but the URL says http://: use https:// (e.g. --master https://…, or fix the kubeconfig's server)")

// ErrHTTPSToHTTP is in the error of a request sent over https:// to a
// server that speaks plain HTTP: it answered the TLS handshake with an
// HTTP reply (Go's http.ErrSchemeMismatch). The server was reached;
// retrying cannot help: the URL must say http://, or name the TLS port.
var ErrHTTPSToHTTP = errors.New("apiclient: the URL says https:// but the server speaks plain HTTP: use http://, or the server's HTTPS port")

// ErrTLS is in the error of a request whose TLS handshake failed after the
// server answered: the client refused the server's certificate (signed by
// an authority the client does not trust, issued for another host name,
// expired) or the server refused the client's (a TLS alert). Retrying
// cannot help: check the CA data, the server name and the client
// certificate (the kubeconfig's certificate-authority-data, tls-server-name,
// client-certificate-data).
var ErrTLS = errors.New("apiclient: TLS handshake failed")

// transportError marks an error of the transport that is not a failure to
// reach the server but a mismatch with it: ErrHTTPSToHTTP or ErrTLS, the
// cause kept. Other errors are returned as they are.
func transportError(err error) error {
	var (
		rh    tls.RecordHeaderError
		cve   *tls.CertificateVerificationError
		alert tls.AlertError
		ua    x509.UnknownAuthorityError
		he    x509.HostnameError
		ci    x509.CertificateInvalidError
	)
	switch {
	case errors.Is(err, http.ErrSchemeMismatch) || errors.As(err, &rh) && string(rh.RecordHeader[:]) == "HTTP/":
		return fmt.Errorf("%w: %w", ErrHTTPSToHTTP, err)
	case errors.As(err, &cve), errors.As(err, &alert), errors.As(err, &ua), errors.As(err, &he), errors.As(err, &ci):
		return fmt.Errorf("%w: %w", ErrTLS, err)
	}
	return err
}

// replyError is the error of a non-2xx reply: its *meta.StatusError, also
// wrapping ErrHTTPToHTTPS when the reply is the 400 a TLS server sends to
// plain HTTP, so callers can stop at once instead of retrying.
func replyError(resp *http.Response) error {
	se := statusError(resp)
	if se.Status.Code == http.StatusBadRequest && strings.Contains(se.Status.Message, "HTTP request to an HTTPS server") {
		return fmt.Errorf("%w: %w", ErrHTTPToHTTPS, se)
	}
	return se
}

// statusError turns a non-2xx reply into a *meta.StatusError. A body that is
// a Status is used as the server wrote it (its code filled from the reply
// when missing); any other body becomes a Status with the reply's code, no
// reason, and a short excerpt of the body, so meta.Code and the Is… helpers
// that accept a bare code still work.
func statusError(resp *http.Response) *meta.StatusError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	se := decodeStatus(resp.StatusCode, resp.Header.Get("Content-Type"), body)
	if d, ok := meta.ParseRetryAfter(resp.Header.Get("Retry-After")); ok {
		se.RetryAfter = d
	}
	return se
}

func decodeStatus(code int, contentType string, body []byte) *meta.StatusError {
	var st meta.Status
	if err := watchstream.DecodeStatus(contentType, body, &st); err == nil && st.Kind == "Status" {
		if st.Code == 0 {
			st.Code = int32(code)
		}
		return &meta.StatusError{Status: st}
	}
	msg := fmt.Sprintf("the server answered %d %s", code, http.StatusText(code))
	if ex := excerpt(body); ex != "" {
		msg += fmt.Sprintf(" with a body that is not a Status (%s): %q", mediaType(contentType), ex)
	}
	return meta.NewStatusError(int32(code), meta.ReasonUnknown, msg)
}

// excerpt returns the start of body with blanks squeezed, cut at excerptLen
// bytes on a rune boundary.
func excerpt(body []byte) string {
	s := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' ' // squeezed below, and never quoted byte by byte
		}
		return r
	}, string(bytes.ToValidUTF8(body, []byte("?"))))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= excerptLen {
		return s
	}
	cut := excerptLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// mediaType names a reply's media type for an error message. The header is
// the server's text: it goes through excerpt, so a hostile server can make
// it neither long nor invalid UTF-8 (net/http passes bytes 0x80-0xff).
func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	if mt = excerpt([]byte(mt)); mt == "" {
		return "no content type"
	}
	return mt
}
