package fakeapiservertest

import (
	"context"
	"testing"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
)

// Start starts a server for a test and closes it with t.Cleanup. It fails
// the test if the server cannot listen. At most one Options may be given.
func Start(t testing.TB, opts ...fakeapiserver.Options) *fakeapiserver.Server {
	t.Helper()
	var o fakeapiserver.Options
	if len(opts) > 1 {
		t.Fatal("fakeapiservertest: Start takes at most one Options")
	}
	if len(opts) == 1 {
		o = opts[0]
	}
	s := fakeapiserver.New(o)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// ClientConfig returns a ready configuration for apiclient.New: the
// server's URL, the CA to trust and its first token. Rate limits are off.
func ClientConfig(s *fakeapiserver.Server) *apiclient.Config {
	cfg := &apiclient.Config{Host: s.URL(), QPS: -1, Namespace: "default", Source: "fakeapiserver",
		BearerToken: s.BearerToken()}
	cfg.TLS.CAData = s.CAData()
	return cfg
}
