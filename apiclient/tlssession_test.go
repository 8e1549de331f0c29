package apiclient_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
)

// handshakes is a TLS test server that records, for each request, whether
// its connection resumed a session.
type handshakes struct {
	srv     *httptest.Server
	mu      sync.Mutex
	resumed []bool
}

func newHandshakes(t *testing.T) *handshakes { return newHandshakesF(t) }

func newHandshakesF(t testing.TB) *handshakes {
	h := &handshakes{}
	h.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.resumed = append(h.resumed, r.TLS.DidResume)
		h.mu.Unlock()
		_, _ = w.Write([]byte(`{"metadata":{"name":"x"}}`))
	}))
	h.srv.EnableHTTP2 = true
	h.srv.StartTLS()
	t.Cleanup(h.srv.Close)
	return h
}

// client is a new client of the server, as a restarted process makes one.
func (h *handshakes) client(t testing.TB) *apiclient.Client {
	t.Helper()
	c, err := apiclient.New(&apiclient.Config{Host: h.srv.URL, QPS: -1,
		TLS: apiclient.TLSConfig{CAData: pemCert(h.srv.Certificate().Raw)}})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// get makes one request and returns whether the server saw it on a
// resumed connection.
func (h *handshakes) get(t testing.TB, c *apiclient.Client) bool {
	t.Helper()
	_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.NoError(t, err)
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.resumed[len(h.resumed)-1]
}

func TestATLSSessionCarriedToTheNextProcessIsResumed(t *testing.T) {
	h := newHandshakes(t)
	first := h.client(t)
	require.Nil(t, first.TLSSession(), "no connection yet, no session")
	require.False(t, h.get(t, first), "the first connection is a full handshake")
	require.False(t, first.TLSResumed())
	saved := first.TLSSession()
	require.NotEmpty(t, saved, "the server gave a ticket")

	next := h.client(t)
	require.NoError(t, next.ResumeTLSSession(saved))
	require.True(t, h.get(t, next), "the next process resumed the session")
	require.True(t, next.TLSResumed())

	cold := h.client(t)
	require.False(t, h.get(t, cold), "a client given no session makes a full handshake")
	require.False(t, cold.TLSResumed())

	// A session carried on again, from the process that resumed one, is
	// the server's newer ticket and resumes too.
	again := h.client(t)
	require.NoError(t, again.ResumeTLSSession(next.TLSSession()))
	require.True(t, h.get(t, again))
	require.True(t, again.TLSResumed())
}

func TestASessionOfAnotherServerIsIgnoredSafely(t *testing.T) {
	a, b := newHandshakes(t), newHandshakes(t)
	ca := a.client(t)
	a.get(t, ca)
	saved := ca.TLSSession()
	require.NotEmpty(t, saved)

	// b is another process at another address, with its own ticket keys
	// (as a restarted kube-apiserver has): it cannot read a's ticket.
	cb := b.client(t)
	require.NoError(t, cb.ResumeTLSSession(saved))
	require.False(t, b.get(t, cb), "another server makes a full handshake")
	require.False(t, cb.TLSResumed(), "a session the server refused is not reported resumed")
	require.False(t, b.get(t, cb), "the request after it works too")
}

func TestAResumptionOfTheClientsOwnSessionIsNotTheSeeds(t *testing.T) {
	a, b := newHandshakes(t), newHandshakes(t)
	ca := a.client(t)
	a.get(t, ca)

	// b refuses a's session and gives its own; the next connection
	// resumes b's session, which says nothing of the seed.
	cb := b.client(t)
	require.NoError(t, cb.ResumeTLSSession(ca.TLSSession()))
	require.False(t, b.get(t, cb))
	cb.CloseIdleConnections()
	require.True(t, b.get(t, cb), "the new connection resumes the session b gave")
	require.False(t, cb.TLSResumed(), "a resumption of the client's own session is not the seed's")

	// A seed given to a client that has sessions of its own is what it
	// offers next.
	cb.CloseIdleConnections()
	require.NoError(t, cb.ResumeTLSSession(cb.TLSSession()))
	require.True(t, b.get(t, cb))
	require.True(t, cb.TLSResumed())
}

func TestABrokenSessionIsRefusedWithoutQuotingIt(t *testing.T) {
	h := newHandshakes(t)
	first := h.client(t)
	h.get(t, first)
	saved := first.TLSSession()
	c := h.client(t)
	for name, b := range map[string][]byte{
		"empty":       nil,
		"not ours":    []byte("a session ticket from somewhere else"),
		"truncated":   saved[:len(saved)/2],
		"cut ticket":  saved[:8],
		"state flips": append(bytes.Clone(saved[:len(saved)-40]), bytes.Repeat([]byte{0xff}, 40)...),
		"huge":        append(bytes.Clone(saved), make([]byte, 1<<20)...),
	} {
		err := c.ResumeTLSSession(b)
		require.Error(t, err, name)
		for _, secret := range [][]byte{saved[len(saved)-32:], []byte(base64.StdEncoding.EncodeToString(saved[len(saved)-32:]))} {
			require.NotContains(t, err.Error(), string(secret), "%s: the error quotes the session", name)
		}
	}
	require.False(t, h.get(t, c), "the client still works, with a full handshake")
	require.False(t, c.TLSResumed())
}

func TestPlainHTTPHasNoSession(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	c, err := apiclient.New(&apiclient.Config{Host: srv.URL})
	require.NoError(t, err)
	require.Nil(t, c.TLSSession())
	require.Error(t, c.ResumeTLSSession([]byte("x")))
	require.False(t, c.TLSResumed())
}

// A saved session is file input: whatever the bytes, ResumeTLSSession
// refuses them or takes them, never panics, and a session it took is
// the one TLSSession hands on.
func FuzzResumeTLSSession(f *testing.F) {
	h := newHandshakesF(f)
	c := h.client(f)
	h.get(f, c)
	f.Add(c.TLSSession())
	f.Add([]byte("zkTLS\x01\x05ab"))
	f.Add([]byte{})
	fresh, err := apiclient.New(&apiclient.Config{Host: "https://127.0.0.1:1"})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, b []byte) {
		if fresh.ResumeTLSSession(b) == nil {
			require.NotEmpty(t, fresh.TLSSession())
		}
	})
}

// The same session given again (informers sharing the client resume from
// snapshots that carry it) is no new seed: what the client knows of it
// stays, a resumption above all. A full handshake after it (the server
// restarted: its ticket keys are new) leaves TLSResumed false, for the
// client's connections no longer all reach the process that issued it.
func TestTheSameSessionAgainKeepsItsResumption(t *testing.T) {
	h := newHandshakes(t)
	first := h.client(t)
	h.get(t, first)
	saved := first.TLSSession()

	next := h.client(t)
	require.NoError(t, next.ResumeTLSSession(saved))
	require.True(t, h.get(t, next))
	require.True(t, next.TLSResumed())
	require.NoError(t, next.ResumeTLSSession(bytes.Clone(saved)), "the same bytes again")
	require.True(t, next.TLSResumed(), "still the same session, still resumed")

	var key [32]byte
	_, err := rand.Read(key[:])
	require.NoError(t, err)
	h.srv.TLS.SetSessionTicketKeys([][32]byte{key}) // as a restarted server's
	next.CloseIdleConnections()
	require.False(t, h.get(t, next), "the server cannot read its old tickets")
	require.False(t, next.TLSResumed(), "a full handshake since: the resumption vouches for nothing now")
	require.NoError(t, next.ResumeTLSSession(saved))
	require.False(t, next.TLSResumed())
}
