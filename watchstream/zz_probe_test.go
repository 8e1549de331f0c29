package watchstream_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/zerokube/zerokube/watchstream"
)

func TestProbeCancelled(t *testing.T) {
	for i := 0; i < 2000; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := watchstream.New[testPod](ctx, io.NopCloser(strings.NewReader("")), watchstream.Options{})
		_, _ = s.Next()
	}
}
