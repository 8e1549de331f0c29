package meta

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/go-json-experiment/json"
)

// TestSharerKeepsABoundedNumberOfMaps: however many distinct maps go
// through a Sharer, it remembers at most sharedMaps of them.
func TestSharerKeepsABoundedNumberOfMaps(t *testing.T) {
	s := NewSharer(ShareMaps)
	for i := range 3 * sharedMaps {
		var m map[string]string
		if err := json.Unmarshal(fmt.Appendf(nil, `{"i":"%d"}`, i), &m, json.WithUnmarshalers(s.Unmarshalers())); err != nil {
			t.Fatal(err)
		}
		s.mu.Lock()
		n := len(s.maps)
		s.mu.Unlock()
		if n > sharedMaps {
			t.Fatalf("after %d maps the Sharer holds %d, more than %d", i+1, n, sharedMaps)
		}
	}
	runtime.KeepAlive(s)
}
