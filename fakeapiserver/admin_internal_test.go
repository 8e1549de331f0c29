package fakeapiserver

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestEveryRowOfTheFaultTableAnswersAsDocumented: each row's endpoint, sent
// the query its row documents, is accepted; the package doc names every
// row; an unknown name is a 404.
func TestEveryRowOfTheFaultTableAnswersAsDocumented(t *testing.T) {
	s := New(Options{})
	require.NoError(t, s.Start(context.Background()))
	t.Cleanup(func() { _ = s.Close() })
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	// restart and restore drop every connection: each request gets its own.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, f := range adminFaults {
		q, body, _ := strings.Cut(f.query, " (")
		if f.name == "put-unchecked" {
			body = `{"metadata":{"name":"x","namespace":"default"},"data":{"k":"v"}}`
		} else {
			body = ""
		}
		before := s.Stats().Faults[Fault(f.name)]
		resp, err := c.Post(s.URL()+"/fake/"+f.name+"?"+q, "application/json", strings.NewReader(body))
		require.NoError(t, err, f.name)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s?%s", f.name, q)
		if f.answerFirst {
			// It runs after its answer and drops every connection: the
			// next request must not race it.
			require.Eventually(t, func() bool { return s.Stats().Faults[Fault(f.name)] > before }, 10*time.Second, time.Millisecond, f.name)
		}
		require.Contains(t, string(doc), "/fake/"+f.name, "doc.go lists every endpoint of the fault table")
	}
	resp, err := c.Post(s.URL()+"/fake/no-such-fault", "", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}
