package watchstream

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gorilla/websocket"
)

// closeGrace bounds how long Stop waits to send a websocket close frame to
// a peer that does not read.
const closeGrace = time.Second

// nextMessage decodes the next websocket message, which must hold exactly
// one event (and optional whitespace).
func (s *Stream[T, P]) nextMessage() (Event[P], error) {
	mt, r, err := s.conn.NextReader()
	if err != nil {
		return Event[P]{}, s.websocketError(err)
	}
	r = midMessage{r}
	if mt == websocket.BinaryMessage && s.opts.Protobuf != nil {
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

// midMessage reads one message. The connection ending inside it is the
// message cut short, as a chunked body cut inside an event is: gorilla
// reports it as a *websocket.CloseError (1006, "unexpected EOF"), which
// would otherwise read as a transport failure on one wire and a malformed
// event on the other.
type midMessage struct{ r io.Reader }

func (m midMessage) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		err = fmt.Errorf("websocket closed inside a message: %w: %w", ce, errCut)
	}
	return n, err
}

// websocketError explains why NextReader failed. A normal closure is the
// clean end of a watch (the server's timeout); any other close code ends it
// with an error that carries the code and reason.
func (s *Stream[T, P]) websocketError(err error) error {
	var ce *websocket.CloseError
	if !errors.As(err, &ce) {
		return fmt.Errorf("watchstream: websocket read: %w", err)
	}
	if ce.Code == websocket.CloseNormalClosure {
		return io.EOF
	}
	de := s.decodeError(0, fmt.Errorf("websocket closed by peer: %w: %w", ce, errCut))
	de.Event++
	return de
}

// closeWebsocket says goodbye (best effort, bounded) and closes the
// connection, which unblocks a pending read.
func (s *Stream[T, P]) closeWebsocket() {
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	// A connection's deadline is on the real clock, not Options.Clock.
	_ = s.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(closeGrace))
	_ = s.conn.Close()
}
