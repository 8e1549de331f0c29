package apiclient

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zerokube/zerokube/meta"
)

// fuzzPod is a slim user type: the fuzz targets decode into it and into
// meta.Raw, the two shapes users pick.
type fuzzPod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		NodeName string `json:"nodeName,omitempty"`
	} `json:"spec,omitzero"`
}

// listSeeds are list bodies a server (or something pretending to be one)
// may send: valid pages, the edges of the framing, and typical breakage.
var listSeeds = []string{
	`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"c","remainingItemCount":3},"items":[{"metadata":{"name":"a","namespace":"n","resourceVersion":"4"}}]}`,
	`{"items":[{"metadata":{"name":"a"}},{"kind":"X","apiVersion":"x/v1","metadata":{"name":"b","labels":{"k":"v"}}}],"kind":"PodList"}`,
	`{"kind":"PodList","items":null}`,
	`{"items":[{"spec":{"nodeName":[1,{"a":[]}]},"metadata":{"name":"a"}},{"metadata":{"name":"b"},"spec":{"nodeName":7}},{"metadata":{"name":"c"}}]}`,
	`{"metadata":{"remainingItemCount":-5},"items":[]}`,
	`{"metadata":{"remainingItemCount":99999999999999999999},"items":[]}`,
	`{"items":[{}]}`,
	`{"items":[{"metadata":null}]}`,
	`{"items":[{"metadata":{"name":"a","name":"b"}}]}`,
	`{"items":[{"metadata":{"managedFields":[{"x":1}]}}]}`,
	`{"items":[{"spec":{"nodeName":7}}]}`,
	`{"items":[1]}`, `{"items":{}}`, `[1,2]`, `null`, ``, `{`, `{"items":[`, `{"items":[]} {}`,
	`{"a":{"b":[[[[[[[]]]]]]]},"items":[]}`,
	"{\"items\":[{\"metadata\":{\"name\":\"\xff\"}}]}",
}

// FuzzListBody feeds arbitrary bytes to the list decoder. It must never
// panic, and when it accepts a body: every item it handed out is an object,
// the Raw and the slim decodings agree on the page, and Raw kept each item's
// bytes.
func FuzzListBody(f *testing.F) {
	for _, s := range listSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var raws []*meta.Raw
		lmRaw, errRaw := decodeList[meta.Raw](bytes.NewReader(body), itemDecoding{}, func(r *meta.Raw) error {
			raws = append(raws, r)
			return nil
		})
		var slim []*fuzzPod
		lmSlim, errSlim := decodeList[fuzzPod](bytes.NewReader(body), itemDecoding{}, func(p *fuzzPod) error {
			slim = append(slim, p)
			return nil
		})
		if errRaw != nil && errRaw.Error() == "" {
			t.Fatal("an error without a message")
		}
		// Skipping what does not fit: the items kept and the items skipped
		// add up to the slim decoding's, when that one decodes them all.
		var kept, skipped int
		skip := itemDecoding{skip: func(ie *ItemError) {
			if ie.Error() == "" {
				t.Fatal("an ItemError without a message")
			}
			skipped++
		}}
		_, errSkip := decodeList[fuzzPod](bytes.NewReader(body), skip, func(*fuzzPod) error { kept++; return nil })
		if errSlim != nil {
			return // the slim type may refuse what Raw accepts (a mistyped field)
		}
		if errSkip != nil || skipped != 0 || kept != len(slim) {
			t.Fatalf("skipping disagrees with the plain decoding: %v, %d skipped, %d/%d kept", errSkip, skipped, kept, len(slim))
		}
		if errRaw != nil {
			t.Fatalf("the slim type accepted a body Raw refused: %v\n%q", errRaw, body)
		}
		if len(raws) != len(slim) || lmRaw.ResourceVersion != lmSlim.ResourceVersion || lmRaw.Continue != lmSlim.Continue {
			t.Fatalf("Raw and slim disagree: %d/%d items, %+v vs %+v", len(raws), len(slim), lmRaw, lmSlim)
		}
		for i, r := range raws {
			if r.Name != slim[i].Name || r.ResourceVersion != slim[i].ResourceVersion {
				t.Fatalf("item %d: Raw %q@%q, slim %q@%q", i, r.Name, r.ResourceVersion, slim[i].Name, slim[i].ResourceVersion)
			}
			if b := r.Bytes(); len(b) == 0 || b[0] != '{' {
				t.Fatalf("item %d: Raw did not keep an object's bytes: %q", i, b)
			}
		}
	})
}

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
