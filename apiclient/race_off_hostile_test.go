//go:build !race

package apiclient_test

const raceEnabled = false
