package main

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zerokube/zerokube/apiclient"
)

// TestEveryMessageHasBothLanguages reads every msg literal of the package
// (typed, or elided in a table such as pageWords): each has an English and
// a Chinese text, and both take the same arguments (%[n]v may reorder
// them, not drop or retype one).
func TestEveryMessageHasBothLanguages(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	seen := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			fields := msgFields(lit)
			if fields == nil {
				return true
			}
			seen++
			where := fset.Position(lit.Pos()).String()
			en, zh := fields["en"], fields["zh"]
			require.NotEmpty(t, en, "%s: a message without English", where)
			require.NotEmpty(t, zh, "%s: %q has no Chinese", where, en)
			require.Equal(t, formatArgs(t, en), formatArgs(t, zh), "%s: %q and %q take different arguments", where, en, zh)
			return true
		})
	}
	require.Greater(t, seen, 100, "the test found the package's messages")
}

// msgFields returns the en and zh strings of a msg literal, nil for any
// other literal. A literal whose keys are en and zh is a msg.
func msgFields(lit *ast.CompositeLit) map[string]string {
	if id, ok := lit.Type.(*ast.Ident); ok && id.Name != "msg" {
		return nil
	}
	out := map[string]string{}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return nil
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok || (key.Name != "en" && key.Name != "zh") {
			return nil
		}
		out[key.Name] = constString(kv.Value)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// constString evaluates a string literal or a + of them.
func constString(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.BasicLit:
		s, _ := strconv.Unquote(v.Value)
		return s
	case *ast.BinaryExpr:
		return constString(v.X) + constString(v.Y)
	case *ast.ParenExpr:
		return constString(v.X)
	}
	return ""
}

// formatArgs maps each argument a fmt format uses (1-based) to its verb.
func formatArgs(t *testing.T, format string) map[int]byte {
	t.Helper()
	args, next := map[int]byte{}, 1
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.", format[i]) >= 0 {
			i++
		}
		if i < len(format) && format[i] == '[' {
			end := strings.IndexByte(format[i:], ']')
			require.Positive(t, end, "%q: an unclosed %%[", format)
			n, err := strconv.Atoi(format[i+1 : i+end])
			require.NoError(t, err, "%q", format)
			next, i = n, i+end+1
		}
		require.Less(t, i, len(format), "%q ends inside a verb", format)
		if format[i] == '%' {
			continue
		}
		args[next] = format[i]
		next++
	}
	return args
}

func TestTheLanguageComesFromTheFlagOrTheEnvironment(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	require.Equal(t, langEN, envLang(env()), "English by default")
	require.Equal(t, langZH, envLang(env("LANG", "zh_CN.UTF-8")))
	require.Equal(t, langZH, envLang(env("LANG", "zh_TW.UTF-8")))
	require.Equal(t, langEN, envLang(env("LANG", "de_DE.UTF-8")), "a language the demo does not speak: English")
	require.Equal(t, langEN, envLang(env("LC_ALL", "C", "LANG", "zh_CN.UTF-8")), "LC_ALL wins over LANG")
	require.Equal(t, langZH, envLang(env("LC_MESSAGES", "zh_CN.UTF-8", "LANG", "en_US.UTF-8")), "LC_MESSAGES wins over LANG")

	for _, s := range []string{"zh", "zh-CN", "ZH_cn"} {
		l, err := parseLang(s)
		require.NoError(t, err)
		require.Equal(t, langZH, l, s)
	}
	_, err := parseLang("fr")
	require.EqualError(t, err, `--lang must be en or zh, got "fr"`)
	c, err := parseFlags([]string{"--lang", "zh"}, nil)
	require.NoError(t, err)
	require.Equal(t, langZH, c.lang)
}

// A text renders its nested texts in its own language.
func TestTextRendersNestedTextsInItsLanguage(t *testing.T) {
	inner := say(msg{en: "last page", zh: "最后一页"})
	outer := say(msg{en: "page %d, %s", zh: "第 %d 页，%s"}, 3, inner)
	require.Equal(t, "page 3, last page", outer.in(langEN))
	require.Equal(t, "第 3 页，最后一页", outer.in(langZH))
}

// A failed first sync is said in the reader's language and keeps its
// cause for errors.Is; its Error stays English.
func TestSyncFailureIsSaidInTheReadersLanguage(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	err := syncFailure(podsRef, "https://127.0.0.1:1", time.Second, context.Canceled, refused)
	require.ErrorIs(t, err, refused)
	require.Equal(t, "cannot sync v1/pods in namespace default from https://127.0.0.1:1: server unreachable: "+refused.Error(), err.Error())
	require.Equal(t, "无法从 https://127.0.0.1:1 同步命名空间 default 中的 v1/pods：连不上 API Server："+refused.Error(), errIn(err, langZH))
	require.Equal(t, "plain", errIn(errors.New("plain"), langZH), "other errors stay as they are")
	tlsErr := fmt.Errorf("%w: x509: certificate signed by unknown authority", apiclient.ErrTLS)
	err = syncFailure(podsRef, "https://127.0.0.1:1", time.Second, context.Canceled, tlsErr)
	require.Equal(t, "cannot sync v1/pods in namespace default from https://127.0.0.1:1: the server answered, but the connection is set up wrong: "+tlsErr.Error(), err.Error(),
		"a certificate the client refuses is not 'server unreachable' (issue 31 item 10)")
	require.Equal(t, "无法从 https://127.0.0.1:1 同步命名空间 default 中的 v1/pods：API Server 有应答，但连接的设置不对："+tlsErr.Error(), errIn(err, langZH))
}

// demo -h speaks Chinese with --lang zh (before or after -h) or a Chinese
// environment, and every flag has its Chinese help: a flag added in
// flags.go needs its line in flaghelp.go's flagHelpZH.
func TestEveryFlagHasChineseHelp(t *testing.T) {
	var en strings.Builder
	_, err := parseFlags([]string{"-h"}, &en)
	require.ErrorIs(t, err, errHelp)
	require.True(t, strings.HasPrefix(en.String(), "Usage: demo [flags]"))
	names := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -(\S+)`).FindAllStringSubmatch(en.String(), -1) {
		names[m[1]] = true
		assert.NotEmpty(t, flagHelpZH[m[1]], "flag -%s has no Chinese help in flagHelpZH", m[1])
	}
	for name := range flagHelpZH {
		assert.True(t, names[name], "flagHelpZH has help for -%s, which no longer exists", name)
	}

	for _, args := range [][]string{{"-h", "--lang", "zh"}, {"--lang=zh", "-h"}, withEnvLang([]string{"-h"}, func(k string) string {
		if k == "LANG" {
			return "zh_CN.UTF-8"
		}
		return ""
	})} {
		var zh strings.Builder
		_, err := parseFlags(args, &zh)
		require.ErrorIs(t, err, errHelp)
		require.True(t, strings.HasPrefix(zh.String(), "用法：demo [参数]"), "%v", args)
		assert.Contains(t, zh.String(), "  -churn-interval duration\n    \t两次自动变更之间的间隔（默认 3s）\n")
		assert.Contains(t, zh.String(), "  -namespace string\n    \t要 watch 的命名空间；\"\" 表示所有命名空间（默认 \"default\"）\n")
	}
}
