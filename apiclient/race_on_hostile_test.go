//go:build race

package apiclient_test

// raceEnabled skips the hostile tests that decode tens of megabytes: the
// race detector makes them take half a minute, and they test no concurrency.
const raceEnabled = true
