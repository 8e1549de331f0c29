package watchstream

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// MessageConn is a watch whose events come one per message: a websocket.
// This package reads the messages and knows nothing of the websocket
// protocol, which package apiclient/websocket speaks (with
// gorilla/websocket), so that a program watching over chunked HTTP does
// not link it.
type MessageConn interface {
	// NextMessage returns a reader of the next message, and whether the
	// message is binary (a protobuf WatchEvent) rather than text (a JSON
	// event). It returns io.EOF when the peer closed the connection
	// normally (the server's end of a watch), and an error wrapping
	// ErrCut when the peer closed it otherwise. The reader is valid until
	// the next call; the connection ending inside its message is an error
	// wrapping ErrCut from its Read (the event cut short: Truncated).
	NextMessage() (r io.Reader, binary bool, err error)
	// Close says goodbye to the peer, bounded in time, and closes the
	// connection, which unblocks a NextMessage in progress.
	Close() error
}

// nextMessage decodes the next websocket message, which must hold exactly
// one event (and optional whitespace).
func (s *Stream[T, P]) nextMessage() (Event[P], error) {
	r, binary, err := s.conn.NextMessage()
	if err != nil {
		return Event[P]{}, s.websocketError(err)
	}
	if binary && s.opts.Protobuf != nil {
		s.wire.r = r
		return s.decodeBinaryMessage(s.wire)
	}
	return s.decodeMessage(r)
}

// decodeMessage decodes the event of one message read from r.
func (s *Stream[T, P]) decodeMessage(r io.Reader) (Event[P], error) {
	s.events++
	s.wire.r = r
	s.lim.allow(s.max)
	if s.dec == nil {
		s.dec = jsontext.NewDecoder(s.lim, decoderOptions)
	} else {
		s.dec.Reset(s.lim, decoderOptions)
	}
	ev, err := s.decodeEvent(s.dec)
	if err == io.EOF {
		err = errors.New("empty websocket message")
	}
	if err == nil {
		err = s.endOfMessage()
	}
	if err != nil {
		return Event[P]{}, s.wrap(0, err)
	}
	return ev, nil
}

// endOfMessage checks that nothing but whitespace follows the event.
func (s *Stream[T, P]) endOfMessage() error {
	if s.dec.PeekKind() == 0 {
		_, err := s.dec.ReadToken()
		if err == io.EOF {
			return nil
		}
		return err
	}
	return s.decodeError(s.dec.InputOffset(), errors.New("websocket message holds more than one event"))
}

// websocketError explains why NextMessage failed: io.EOF is the clean end
// of a watch (the server's timeout); a close other than normal ends it with
// an error of the event it cut, which carries the close code and reason.
func (s *Stream[T, P]) websocketError(err error) error {
	if err == io.EOF {
		return io.EOF
	}
	if !errors.Is(err, ErrCut) {
		return fmt.Errorf("watchstream: websocket read: %w", err)
	}
	de := s.decodeError(0, err)
	de.Event++
	return de
}
