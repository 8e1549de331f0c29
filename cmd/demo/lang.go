package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zerokube/zerokube/apiclient"
)

// lang is the language the demo speaks to its reader: the words of the
// --trace lines, its own status lines on stderr and the live page. What
// scripts and the article's readers match stays the same in every
// language: the handler lines ("Add:  default/example-…"), the trace's stage
// names (its second column) and the op names (observe.Op).
type lang uint8

const (
	langEN lang = iota // English, the default
	langZH             // 简体中文, for the readers of the article the project grew from
)

// code is the language's tag, as --lang and the page's ?lang= take it.
func (l lang) code() string {
	if l == langZH {
		return "zh"
	}
	return "en"
}

// parseLang reads --lang: en or zh, or a locale name such as zh_CN.UTF-8.
func parseLang(s string) (lang, error) {
	if l, ok := localeLang(s); ok {
		return l, nil
	}
	return langEN, fmt.Errorf("--lang must be en or zh, got %q", s)
}

// localeLang maps a language tag or POSIX locale name to a lang: zh, zh-CN,
// zh_TW.UTF-8 are Chinese, en and en_US.UTF-8 English. ok is false for any
// other language.
func localeLang(s string) (lang, bool) {
	s = strings.ToLower(s)
	switch {
	case s == "zh" || strings.HasPrefix(s, "zh_") || strings.HasPrefix(s, "zh-") || strings.HasPrefix(s, "zh."):
		return langZH, true
	case s == "en" || strings.HasPrefix(s, "en_") || strings.HasPrefix(s, "en-") || strings.HasPrefix(s, "en."):
		return langEN, true
	}
	return langEN, false
}

// envLang picks the language from the environment as POSIX programs pick
// their messages' language: the first of LC_ALL, LC_MESSAGES and LANG that
// is set decides; Chinese if it names Chinese, English otherwise.
func envLang(getenv func(string) string) lang {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(name); v != "" {
			l, _ := localeLang(v)
			return l
		}
	}
	return langEN
}

// withEnvLang puts the environment's language first in args when it is
// Chinese and args do not choose one: a --lang of args, later, wins.
func withEnvLang(args []string, getenv func(string) string) []string {
	if envLang(getenv) != langZH {
		return args
	}
	return append([]string{"--lang=zh"}, args...)
}

// msg is one message in both languages, side by side, so that no message
// can lack its translation (TestEveryMessageHasBothLanguages reads every
// msg literal of the package) and both take the same arguments. The
// Chinese format may take them in another order with %[n]v.
type msg struct{ en, zh string }

// text is a message with its arguments, rendered in either language: the
// live page keeps its log lines as texts, so each reader gets their own
// language. An argument that is itself a text is rendered in the same
// language.
type text struct {
	m    msg
	args []any
}

// say pairs m with its arguments.
func say(m msg, args ...any) text { return text{m: m, args: args} }

// in renders t in language l.
func (t text) in(l lang) string {
	format := t.m.en
	if l == langZH {
		format = t.m.zh
	}
	args := make([]any, len(t.args))
	for i, a := range t.args {
		if sub, ok := a.(text); ok {
			a = sub.in(l)
		}
		args[i] = a
	}
	return fmt.Sprintf(format, args...)
}

// refSaid names a resource and its namespace as apiclient.Ref's String
// does, in both languages.
func refSaid(r apiclient.Ref) text {
	if r.Namespace == "" {
		return say(msg{en: "%s", zh: "%s"}, r.GVR.String())
	}
	return say(msg{en: "%s in namespace %s", zh: "命名空间 %[2]s 中的 %[1]s"}, r.GVR.String(), r.Namespace)
}

// saidError is an error the demo says to the reader in their language (run
// prints it so); its Error is the English, and it wraps its cause.
type saidError struct {
	said  text
	cause error
}

func saidErr(cause error, m msg, args ...any) error {
	return &saidError{said: say(m, args...), cause: cause}
}

func (e *saidError) Error() string { return e.said.in(langEN) }
func (e *saidError) Unwrap() error { return e.cause }

// errIn is err as the reader reads it, on one line.
func errIn(err error, l lang) string {
	var se *saidError
	if errors.As(err, &se) {
		return strings.Join(strings.Fields(se.said.in(l)), " ")
	}
	return oneLine(err)
}

// f renders m with args in language l.
func (l lang) f(m msg, args ...any) string { return say(m, args...).in(l) }
