// Package fakeapiservertest starts a fakeapiserver for a test in one line
// and hands out a client configuration for it:
//
//	srv := fakeapiservertest.Start(t)                        // closed by t.Cleanup
//	c, err := apiclient.New(fakeapiservertest.ClientConfig(srv))
//
// It is kept out of package fakeapiserver so that production code (the
// demo, cmd/fakeapiserver) does not link package testing, and so that
// fakeapiserver does not depend on apiclient, the client it is a server
// for.
package fakeapiservertest
