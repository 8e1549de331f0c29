package watchstream_test

import (
	"bytes"
	"testing"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
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
		lmRaw, errRaw := watchstream.DecodeList[meta.Raw](bytes.NewReader(body), watchstream.Options{}, func(r *meta.Raw) error {
			raws = append(raws, r)
			return nil
		})
		var slim []*fuzzPod
		lmSlim, errSlim := watchstream.DecodeList[fuzzPod](bytes.NewReader(body), watchstream.Options{}, func(p *fuzzPod) error {
			slim = append(slim, p)
			return nil
		})
		if errRaw != nil && (errRaw.Error() == "" || watchstream.ProblemOf(errRaw) == 0) {
			t.Fatalf("an error without a message or a Problem: %v", errRaw)
		}
		// Skipping what does not fit: the items kept and the items skipped
		// add up to the slim decoding's, when that one decodes them all.
		var kept, skipped int
		skip := watchstream.Options{SkipUndecodable: func(de *watchstream.DecodeError) {
			if de.Error() == "" || de.Problem != watchstream.Undecodable {
				t.Fatalf("a skipped item's error without a message or of another problem: %v", de)
			}
			skipped++
		}}
		_, errSkip := watchstream.DecodeList[fuzzPod](bytes.NewReader(body), skip, func(*fuzzPod) error { kept++; return nil })
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
