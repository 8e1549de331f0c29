package kubeproto

import (
	"bytes"
	"errors"
	"io"
	"testing"
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
			_, _ = DecodeList(msg, func(int, []byte) error { return nil })
		}
	})
}
