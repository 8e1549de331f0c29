// Package websocket opens watches over a websocket, with gorilla/websocket:
// set WatchOptions.Websocket (apiclient) or Transport.Websocket (informer)
// to Dialer{}.
//
//	inf := informer.New[Pod](client, ref, informer.Options[*Pod]{
//		Transport: informer.Transport{Websocket: websocket.Dialer{}},
//	})
//
// It sits beside apiclient, at the top of the data path: apiclient prepares
// the upgrade request (URL, credentials, Origin, Accept) and reads a
// refusal's Status; this package does the handshake and hands watchstream
// the connection's messages (watchstream.MessageConn), one event each. It is
// a package of its own so that a program watching over chunked HTTP, the
// default, does not link a websocket library (bench/README.md, "The agent's
// footprint").
//
// Invariants:
//  1. Cancelling the dial's context aborts a handshake in progress, even
//     against a server that accepted the connection and never answers
//     (apiclient's TestCancellingAWebsocketWatchAbortsAHandshakeTheServerNeverAnswers).
//  2. A normal closure (code 1000, the server's end of a watch) reads as
//     io.EOF; any other close as an error wrapping watchstream.ErrCut that
//     carries the code and reason (watchstream's TestWebsocketOneEventPerMessage
//     and TestWebsocketBadInput, over this package's Dialer).
//  3. Close sends a normal closure, waiting at most a second for a peer
//     that does not read, and closes the connection
//     (watchstream's TestWebsocketStopAndIdleOnASilentPeer).
package websocket
