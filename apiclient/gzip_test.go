package apiclient_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// gzipServer answers a LIST of n pods gzipped, as kube-apiserver answers a
// large one, when the request accepts gzip, and records what it accepted.
func gzipServer(t *testing.T, n int, disable bool) (*apiclient.Client, *[]string) {
	t.Helper()
	var body strings.Builder
	body.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[`)
	for i := range n {
		if i > 0 {
			body.WriteByte(',')
		}
		body.WriteString(`{"metadata":{"name":"p` + strings.Repeat("x", i%50) + `","namespace":"default"}}`)
	}
	body.WriteString(`]}`)
	var accepted []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accepted = append(accepted, r.Header.Get("Accept-Encoding"))
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Accept-Encoding") != "gzip" {
			_, _ = w.Write([]byte(body.String()))
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw, _ := gzip.NewWriterLevel(w, 1)
		_, _ = zw.Write([]byte(body.String()))
		_ = zw.Close()
	}))
	t.Cleanup(srv.Close)
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, QPS: -1, DisableCompression: disable})
	return c, &accepted
}

func TestListInflatesGzipRepliesItAskedFor(t *testing.T) {
	for _, disable := range []bool{false, true} {
		c, accepted := gzipServer(t, 3000, disable)
		got := 0
		lm, err := apiclient.List[meta.Raw](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*meta.Raw) error {
			got++
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, 3000, got)
		require.Equal(t, "7", lm.ResourceVersion)
		want := "gzip"
		if disable {
			want = "" // DisableCompression: nothing asked, identity sent
		}
		require.Equal(t, []string{want}, *accepted)
	}
}

func TestWatchAsksForGzipUnlessDisabled(t *testing.T) {
	for _, disable := range []bool{false, true} {
		var accepted string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			accepted = r.Header.Get("Accept-Encoding")
			w.WriteHeader(http.StatusOK)
		}))
		c, _ := newClient(t, &apiclient.Config{Host: srv.URL, QPS: -1, DisableCompression: disable})
		s, err := apiclient.Watch[meta.Raw](context.Background(), c, podsRef, apiclient.WatchOptions{})
		require.NoError(t, err)
		s.Stop()
		srv.Close()
		want := map[bool]string{false: "gzip", true: "identity"}[disable]
		require.Equal(t, want, accepted)
	}
}

func TestACorruptGzipReplyIsAnErrorThatSaysSo(t *testing.T) {
	for name, body := range map[string][]byte{
		"not gzip":  []byte(`{"kind":"PodList","items":[]}`),
		"truncated": gzipped(t, `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"a"}}]}`)[:30],
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", "gzip")
				_, _ = w.Write(body)
			})
			_, err := apiclient.List[meta.Raw](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*meta.Raw) error { return nil })
			require.ErrorContains(t, err, "gzip reply")
			require.ErrorContains(t, err, "pods")
		})
	}
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}
