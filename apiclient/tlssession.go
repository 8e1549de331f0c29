package apiclient

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// TLS sessions carried across a restart.
//
// A new connection to kube-apiserver costs it a TLS handshake: a key
// exchange and a signature with its serving key. A client that saved the
// session ticket the server gave it (TLSSession) and hands it to the client
// of its next process (ResumeTLSSession) resumes that session instead: the
// server skips the signature and its certificate (TLS 1.3 resumption keeps
// the key exchange, psk_dhe_ke, so the traffic keeps forward secrecy).
// Measured on kube-apiserver v1.37.2 (bench/README.md, the restart
// storm's profile): about 0.04 ms of the server's CPU a connection, 5 %
// of a resumed agent's.
//
// What resumption is worth more: only the process that issued a ticket can
// decrypt it (Go's servers, kube-apiserver among them, make their ticket
// keys at random when they start and share them with no other process). A
// connection that resumed the saved session is therefore to the very
// server process the session was saved from, which TLSResumed reports: an
// informer resuming from a snapshot takes it as proof that the cluster and
// its history are the ones the snapshot is of, and skips the requests that
// would check them (informer/snapshot_verify.go).
//
// A session is a secret: whoever holds it can resume it, read traffic
// recorded from connections that resumed it, and, where the client
// authenticates with a certificate, be taken for the client until the
// server's ticket expires (7 days for Go's servers), since a resumed
// connection keeps the identity of the handshake that made the session.
// TLSSession's bytes go only where the client's key would go (a snapshot
// file is 0600), and nothing here logs them or puts them in an error.

// sessionMagic starts TLSSession's bytes: a version, so that a session
// saved by another format is refused rather than misread.
const sessionMagic = "zkTLS\x01"

// maxSession bounds what ResumeTLSSession reads: a session holds the
// server's certificate chain, a few KB.
const maxSession = 64 << 10

// tlsSessions is a client's tls.ClientSessionCache. It keeps the last
// session the server gave for each of Go's cache keys (the server's name;
// a client talks to one server, so there are one or two), and the seed
// given to ResumeTLSSession, which it offers for any key until the server
// gives a session of this process.
type tlsSessions struct {
	mu     sync.Mutex // guards the fields below
	byKey  map[string]*tls.ClientSessionState
	latest *tls.ClientSessionState // the last one Put, or the seed
	seed   *tls.ClientSessionState
	// seedBytes are the bytes seed was parsed from: the same session given
	// again (informers sharing the client, whose snapshots carry it) is no
	// new seed.
	seedBytes []byte
	// fresh: a session was Put since the seed was set, so that a later
	// resumption may be of that session rather than the seed.
	fresh bool

	resumed atomic.Bool // a handshake resumed the seed (TLSResumed)
}

// maxSessionKeys bounds byKey: more keys than this means the client is
// used against more names than one server has.
const maxSessionKeys = 8

func newTLSSessions() *tlsSessions {
	return &tlsSessions{byKey: map[string]*tls.ClientSessionState{}}
}

// Get implements tls.ClientSessionCache.
func (s *tlsSessions) Get(key string) (*tls.ClientSessionState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs, ok := s.byKey[key]; ok {
		return cs, true
	}
	return s.seed, s.seed != nil
}

// Put implements tls.ClientSessionCache; crypto/tls puts nil to drop a
// session it found unusable (expired, another server name).
func (s *tlsSessions) Put(key string, cs *tls.ClientSessionState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs == nil {
		if s.byKey[key] == nil {
			s.seed = nil // the seed was offered for this key
		}
		delete(s.byKey, key)
		return
	}
	if _, ok := s.byKey[key]; !ok && len(s.byKey) >= maxSessionKeys {
		clear(s.byKey)
	}
	s.byKey[key], s.latest, s.fresh = cs, cs, true
}

// verify is the config's VerifyConnection, which crypto/tls calls on every
// handshake, resumed ones included, before the connection carries a
// request. A resumption counts as the seed's only while no session of
// this process exists (the first connection's tickets arrive after its
// handshake): with one, the resumed session may be either, and the answer
// is the safe one, not resumed.
func (s *tlsSessions) verify(cs tls.ConnectionState) error {
	if !cs.DidResume {
		// A full handshake: this connection may reach another server
		// process (one that refused the session, another replica), and
		// TLSResumed vouches for the client's connections as they are.
		s.resumed.Store(false)
		return nil
	}
	s.mu.Lock()
	seedOnly := s.seed != nil && !s.fresh
	s.mu.Unlock()
	if seedOnly {
		s.resumed.Store(true)
	}
	return nil
}

// TLSSession returns the TLS session the client would resume with its
// server, serialized for ResumeTLSSession in a later process, or nil when
// it has none (plain http, no connection yet, a server that gives no
// tickets). The bytes are a secret (see the package's TLS notes): store
// them as privately as the client's credentials.
func (c *Client) TLSSession() []byte {
	if c.sessions == nil {
		return nil
	}
	c.sessions.mu.Lock()
	cs := c.sessions.latest
	c.sessions.mu.Unlock()
	if cs == nil {
		return nil
	}
	ticket, state, err := cs.ResumptionState()
	if err != nil || state == nil {
		return nil
	}
	st, err := state.Bytes()
	if err != nil {
		return nil
	}
	b := make([]byte, 0, len(sessionMagic)+binary.MaxVarintLen64+len(ticket)+len(st))
	b = append(b, sessionMagic...)
	b = binary.AppendUvarint(b, uint64(len(ticket)))
	b = append(b, ticket...)
	return append(b, st...)
}

// ResumeTLSSession gives the client a session TLSSession returned, perhaps
// in an earlier process, to offer on its next connections; TLSResumed then
// says whether the server took it. A session the server does not know (it
// restarted, another server answers at the address) costs nothing but the
// full handshake the connection would have made anyway, and one of
// another server name or whose certificate has expired is not even
// offered (crypto/tls checks). The error never quotes the bytes.
func (c *Client) ResumeTLSSession(b []byte) error {
	if c.sessions == nil {
		return fmt.Errorf("apiclient: a TLS session for %s, which is not https", c.base)
	}
	c.sessions.mu.Lock()
	defer c.sessions.mu.Unlock()
	// The seed given again: keep what is known of it, whether a
	// connection resumed it above all. Informers sharing a client resume
	// from snapshots that carry the same session; had each reset the seed,
	// only the informer whose WATCH made the connection could be vouched
	// for, and the others would ask the checks it spares.
	if c.sessions.seedBytes != nil && bytes.Equal(b, c.sessions.seedBytes) {
		return nil
	}
	cs, err := parseSession(b)
	if err != nil {
		return fmt.Errorf("apiclient: TLS session to resume with %s: %w", c.base.Host, err)
	}
	// The seed is what the next connection offers: the client's own
	// sessions, if it had any, are forgotten.
	clear(c.sessions.byKey)
	c.sessions.seed, c.sessions.seedBytes, c.sessions.latest, c.sessions.fresh = cs, bytes.Clone(b), cs, false
	// TLSResumed speaks of this seed only: a resumption of an earlier one
	// (another informer sharing the client) vouches for nothing here.
	c.sessions.resumed.Store(false)
	return nil
}

// TLSResumed reports whether a connection of the client resumed the
// session given to the last ResumeTLSSession (the same bytes given again
// are the same session), and no connection has made a full handshake
// since: it reached the server process that session was saved from. A
// request over a connection made before that call makes no handshake,
// and leaves it false. It speaks of connections made, not of whether one
// is still open: a caller that takes it as a server's word asks for an
// answer over the connection first.
func (c *Client) TLSResumed() bool { return c.sessions != nil && c.sessions.resumed.Load() }

// parseSession reads TLSSession's bytes.
func parseSession(b []byte) (*tls.ClientSessionState, error) {
	rest, ok := bytes.CutPrefix(b, []byte(sessionMagic))
	switch {
	case len(b) > maxSession:
		return nil, fmt.Errorf("%d bytes, over the %d a session holds", len(b), maxSession)
	case !ok:
		return nil, errors.New("not a session saved by Client.TLSSession")
	}
	n, k := binary.Uvarint(rest)
	if k <= 0 || n > uint64(len(rest)-k) {
		return nil, errors.New("its ticket's length is past its end")
	}
	ticket, st := rest[k:k+int(n)], rest[k+int(n):]
	state, err := tls.ParseSessionState(st)
	if err != nil {
		return nil, errors.New("its session state does not parse") // crypto/tls's error says no more
	}
	cs, err := tls.NewResumptionState(bytes.Clone(ticket), state)
	if err != nil {
		return nil, errors.New("crypto/tls refuses its session state")
	}
	return cs, nil
}
