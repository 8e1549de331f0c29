package fakeapiserver

import "strconv"

func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
