// Package watchstream turns the bytes of a Kubernetes watch into typed events,
// and writes events in the same framing for servers.
//
// It sits between the connection and the reflector:
//
//	apiclient ──body / websocket──▶ watchstream ──Event[P]──▶ informer.Reflector
//
// apiclient opens the connection; this package only frames and decodes. It
// never retries or relists: what to do after an error is the informer's policy.
//
// Server side, [Encoder] and [AppendFrame] write the chunked framing
// (`{"type":…,"object":…}` and a newline per event), flushing per event and
// optionally gzipping one member per event; [WriteWebsocketFrame] sends a
// frame as one websocket text message.
package watchstream
