package apiclient

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zerokube/zerokube/meta"
)

// statusSeeds are error bodies from kube-apiserver, proxies and broken
// servers.
var statusSeeds = []struct {
	code int
	ct   string
	body string
}{
	{404, "application/json", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}`},
	{410, "application/json", `{"kind":"Status","code":0,"reason":"Expired"}`},
	{429, "application/json", `{"kind":"Status","reason":"TooManyRequests","details":{"retryAfterSeconds":-3}}`},
	{504, "application/json", `{"kind":"Status","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge"}],"retryAfterSeconds":2147483647}}`},
	{500, "application/json", `{"kind":"Status","code":99999999999}`},
	{503, "application/json", `{"kind":"NotStatus","code":503}`},
	{502, "text/html; charset=utf-8", "<html><body><h1>502 Bad Gateway</h1></body></html>"},
	{401, "", ""},
	{403, "text/plain", "\x00\x01\x1b[31mred\xff\xfe"},
	{999, "application/json", `{"kind":"Status"`},
	{400, "application/json", `{"kind":"Status","message":"` + strings.Repeat("m", 300) + `"}`},
	{410, "application/\xa1\xa1json", "0"}, // found by the fuzzer: a header of invalid UTF-8 went into the message
	{500, strings.Repeat("text/", 1000), "x"},
}

// FuzzStatusBody feeds arbitrary non-2xx replies to the error decoder. The
// result is always a StatusError with a code; a body that is not a Status
// keeps the reply's code and is quoted only briefly, as valid UTF-8, with
// no control characters that could forge log lines.
func FuzzStatusBody(f *testing.F) {
	for _, s := range statusSeeds {
		f.Add(s.code, s.ct, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, code int, ct string, body []byte) {
		if code < 100 || code > 999 || strings.ContainsFunc(ct, isCtl) {
			return // net/http never hands out such a reply
		}
		se := decodeStatus(code, ct, body)
		if se == nil {
			t.Fatal("nil StatusError")
		}
		msg := se.Error()
		if msg == "" {
			t.Fatal("empty message")
		}
		if se.Status.Code == 0 {
			t.Fatalf("no code for a %d reply: %+v", code, se.Status)
		}
		var asErr *meta.StatusError
		if !errors.As(error(se), &asErr) || meta.Code(se) != se.Status.Code {
			t.Fatal("meta helpers do not see the StatusError")
		}
		if se.Status.Kind == "Status" && bytes.Contains(body, []byte(`"Status"`)) {
			return // the server's own Status, used as written
		}
		if int(se.Status.Code) != code {
			t.Fatalf("a body that is not a Status changed the code: %d for a %d reply", se.Status.Code, code)
		}
		if len(msg) > 4*excerptLen+200 {
			t.Fatalf("message of %d bytes for a body of %d: the excerpt is not bounded", len(msg), len(body))
		}
		if !utf8.ValidString(msg) {
			t.Fatalf("message is not valid UTF-8: %q", msg)
		}
		if strings.ContainsAny(msg, "\n\r\x1b\x00") {
			t.Fatalf("message holds control characters: %q", msg)
		}
	})
}

// isCtl reports the characters net/http refuses in a header value.
func isCtl(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f }
