package kubeproto

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// FuzzDecodeEnvelope: any input either decodes or fails with a
// *DecodeError, and what decodes re-encodes to an envelope that decodes the
// same.
func FuzzDecodeEnvelope(f *testing.F) {
	f.Add(AppendEnvelope(nil, Envelope{APIVersion: "v1", Kind: "Pod", Raw: []byte{0x0a, 0x00}}))
	f.Add([]byte("k8s\x00"))
	f.Add([]byte("k8s\x00\x0a\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := DecodeEnvelope(b)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error is not a *DecodeError: %v", err)
			}
			return
		}
		again, err := DecodeEnvelope(AppendEnvelope(nil, e))
		if err != nil || again.APIVersion != e.APIVersion || again.Kind != e.Kind || !bytes.Equal(again.Raw, e.Raw) {
			t.Fatalf("re-encoded envelope differs: %+v, %v", again, err)
		}
	})
}

// FuzzWatchStream: a hostile stream of frames and events never panics and
// never allocates beyond what it holds.
func FuzzWatchStream(f *testing.F) {
	podList, _ := MessageFor("v1", "PodList")
	obj := AppendEnvelope(nil, Envelope{APIVersion: "v1", Kind: "ConfigMap"})
	f.Add(AppendFrame(nil, AppendWatchEvent(nil, WatchEvent{Type: "ADDED", Object: obj})))
	f.Add([]byte{0x7f, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		fr := NewFrameReader(bytes.NewReader(b), 1<<16)
		for {
			msg, err := fr.Next()
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if len(msg) > len(b) {
				t.Fatalf("frame of %d bytes from %d bytes of input", len(msg), len(b))
			}
			if ev, err := DecodeWatchEvent(msg); err == nil {
				_, _ = DecodeEnvelope(ev.Object)
			}
			_, _ = AppendJSON(nil, podList, msg)
		}
	})
}

func fuzzSeeds(f *testing.F) {
	f.Helper()
	pairs, _ := filepathGlobRealPB()
	for _, b := range pairs {
		f.Add(b)
	}
	f.Add(nestedRevisions(f, 3)) // objects in each other's RawExtensions
}

// FuzzAppendObjectJSON: any enveloped input either fails with a
// *DecodeError or gives valid JSON. That JSON encodes back to protobuf that
// decodes, and after that first normalisation (a present pointer whose JSON
// is null, such as an empty FieldsV1, comes back absent, as it does through
// Go's structs) the round trip is stable.
func FuzzAppendObjectJSON(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		js, err := AppendObjectJSON(nil, b)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error is not a *DecodeError: %v", err)
			}
			return
		}
		// A raw value (FieldsV1, RawExtension) travels as stored, and may
		// repeat a member name, as in kube-apiserver's JSON for it: valid
		// JSON for every decoder of this project, which allows duplicates.
		if !jsontext.Value(js).IsValid(dupsAllowed) {
			t.Fatalf("invalid JSON: %s", js)
		}
		once := roundTrip(t, js)
		if once == nil {
			return // e.g. a time outside RFC 3339's years
		}
		twice := roundTrip(t, once)
		var v1, v2 any
		if err := json.Unmarshal(once, &v1, dupsAllowed); err != nil {
			t.Fatalf("our JSON does not decode: %v\n%s", err, once)
		}
		if err := json.Unmarshal(twice, &v2, dupsAllowed); err != nil || !reflect.DeepEqual(v1, v2) {
			t.Fatalf("JSON changed on a round trip (%v):\n%s\n%s", err, once, twice)
		}
	})
}

var dupsAllowed = jsontext.AllowDuplicateNames(true)

// roundTrip is JSON -> protobuf -> JSON; nil when the JSON does not encode.
func roundTrip(t *testing.T, js []byte) []byte {
	pb, err := AppendObjectProto(nil, js)
	if err != nil {
		return nil
	}
	again, err := AppendObjectJSON(nil, pb)
	if err != nil {
		t.Fatalf("our own protobuf does not decode: %v\n%s", err, js)
	}
	return again
}

// FuzzAppendObjectProto: any JSON input either fails with a *DecodeError or
// gives protobuf that decodes.
func FuzzAppendObjectProto(f *testing.F) {
	files, _ := filepath.Glob("testdata/real/*.json")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, js []byte) {
		pb, err := AppendObjectProto(nil, js)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error is not a *DecodeError: %v", err)
			}
			return
		}
		if _, err := AppendObjectJSON(nil, pb); err != nil {
			t.Fatalf("our own protobuf does not decode: %v\n%s", err, js)
		}
	})
}

func filepathGlobRealPB() ([][]byte, error) {
	files, err := filepath.Glob("testdata/real/*.pb")
	var out [][]byte
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && bytes.HasPrefix(b, []byte(Magic)) {
			out = append(out, b)
		}
	}
	return out, err
}
