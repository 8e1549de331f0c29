package apiclient

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zerokube/zerokube/meta"
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
	if err := unmarshalStatus(contentType, body, &st); err == nil && st.Kind == "Status" {
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
