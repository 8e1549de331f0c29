//go:build ignore

// Command gen writes kubeproto/zz_schema.go: the protobuf schema of
// Kubernetes' built-in kinds, read by reflection from the Go types of
// k8s.io/api (their `protobuf:"..."` and `json:"..."` struct tags) and from
// client-go's scheme (which apiVersion+kind maps to which type).
//
// It imports k8s.io modules, so it never builds inside the root module (the
// build tag above keeps it out of `go build ./...`): gen.sh copies it into a
// throwaway module in a temporary directory and runs it there.
//
//	go run main.go -o zz_schema.go
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// These constants mirror kubeproto/schema.go; the generated file refers to
// them by name, so a mismatch fails to compile.
var kindNames = map[reflect.Kind]string{
	reflect.String: "kString", reflect.Bool: "kBool",
	reflect.Int32: "kInt32", reflect.Int64: "kInt64", reflect.Int: "kInt64",
	reflect.Uint32: "kUint32", reflect.Uint64: "kUint64", reflect.Float64: "kFloat64",
}

// special Go types: their JSON form is not their protobuf message's shape.
var specials = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "sTime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  "sMicroTime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   "sDuration",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   "sFieldsV1",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "sQuantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "sIntOrString",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":    "sRawExtension",
	"k8s.io/apimachinery/pkg/runtime.Unknown":         "sUnknown",
}

// specialFields gives the protobuf fields of the special types (their Go
// structs do not carry protobuf tags, or carry Go-only fields).
var specialFields = map[string][]fld{
	"sTime":         {{num: 1, json: "seconds", kind: "kInt64"}, {num: 2, json: "nanos", kind: "kInt32"}},
	"sMicroTime":    {{num: 1, json: "seconds", kind: "kInt64"}, {num: 2, json: "nanos", kind: "kInt32"}},
	"sDuration":     {{num: 1, json: "duration", kind: "kInt64"}},
	"sFieldsV1":     {{num: 1, json: "Raw", kind: "kBytes"}},
	"sQuantity":     {{num: 1, json: "string", kind: "kString"}},
	"sIntOrString":  {{num: 1, json: "type", kind: "kInt64"}, {num: 2, json: "intVal", kind: "kInt32"}, {num: 3, json: "strVal", kind: "kString"}},
	"sRawExtension": {{num: 1, json: "raw", kind: "kBytes"}},
}

type fld struct {
	num   int
	json  string
	kind  string // kString, ..., kMessage
	msg   string // message name for kMessage
	flags []string
}

type msg struct {
	name    string
	special string
	fields  []fld
}

type gen struct {
	msgs  map[string]*msg
	warns []string
}

func protoName(t reflect.Type) string {
	return strings.ReplaceAll(t.PkgPath(), "/", ".") + "." + t.Name()
}

func (g *gen) warn(f string, a ...any) { g.warns = append(g.warns, fmt.Sprintf(f, a...)) }

// message registers t (a struct type) and every type it reaches.
func (g *gen) message(t reflect.Type) string {
	name := protoName(t)
	if _, ok := g.msgs[name]; ok {
		return name
	}
	m := &msg{name: name}
	g.msgs[name] = m
	full := t.PkgPath() + "." + t.Name()
	if sp, ok := specials[full]; ok {
		m.special = sp
		if sp == "sUnknown" {
			m.fields = []fld{
				{num: 1, json: "typeMeta", kind: "kMessage", msg: g.message(reflect.TypeOf(runtime.TypeMeta{}))},
				{num: 2, json: "raw", kind: "kBytes"},
				{num: 3, json: "contentEncoding", kind: "kString"},
				{num: 4, json: "contentType", kind: "kString"},
			}
			return name
		}
		m.fields = specialFields[sp]
		return name
	}
	if t.Kind() != reflect.Struct {
		panic("not a struct: " + full)
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if f, ok := g.field(t, sf); ok {
			m.fields = append(m.fields, f)
		}
	}
	// kube-apiserver writes an empty list's items as [] in JSON (never
	// null), though protobuf cannot tell empty from absent.
	listMeta := protoName(reflect.TypeOf(metav1.ListMeta{}))
	if len(m.fields) >= 2 && m.fields[0].num == 1 && m.fields[0].msg == listMeta &&
		m.fields[1].json == "items" && contains(m.fields[1].flags, "fRepeated") {
		m.fields[1].flags = append(m.fields[1].flags, "fEmptyArray")
	}
	return name
}

func (g *gen) field(owner reflect.Type, sf reflect.StructField) (fld, bool) {
	where := owner.PkgPath() + "." + owner.Name() + "." + sf.Name
	jtag, hasJSON := sf.Tag.Lookup("json")
	jparts := strings.Split(jtag, ",")
	f := fld{json: jparts[0]}
	for _, o := range jparts[1:] {
		switch o {
		case "omitempty":
			f.flags = append(f.flags, "fOmitEmpty")
		case "omitzero":
			f.flags = append(f.flags, "fOmitZero")
		case "inline":
			f.flags = append(f.flags, "fInline")
		case "":
		default:
			g.warn("%s: json option %q ignored", where, o)
		}
	}
	if sf.Anonymous && f.json == "" && !contains(f.flags, "fInline") {
		f.flags = append(f.flags, "fInline")
	}
	ptag, ok := sf.Tag.Lookup("protobuf")
	if !ok {
		if sf.Anonymous && sf.Type == reflect.TypeOf(metav1.TypeMeta{}) {
			return fld{}, false // kind and apiVersion travel in the envelope
		}
		g.warn("%s: no protobuf tag, field left out", where)
		return fld{}, false
	}
	if !hasJSON || f.json == "-" {
		g.warn("%s: no json name, field left out", where)
		return fld{}, false
	}
	if !sf.IsExported() {
		g.warn("%s: unexported", where)
		return fld{}, false
	}
	pparts := strings.Split(ptag, ",")
	num, err := strconv.Atoi(pparts[1])
	if err != nil {
		panic(where + ": bad protobuf tag " + ptag)
	}
	f.num = num
	if contains(pparts, "packed") {
		f.flags = append(f.flags, "fPacked")
	}
	t := sf.Type
	if t.Kind() == reflect.Pointer {
		f.flags = append(f.flags, "fNullable")
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Map:
		f.flags = append(f.flags, "fMap")
		f.kind = "kMessage"
		f.msg = g.mapEntry(where, t)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		f.kind = "kBytes"
	case t.Kind() == reflect.Slice && t.Name() != "":
		// A named slice that protobuf wraps in a message (metav1.Verbs,
		// authentication's ExtraValue): JSON shows the bare array.
		f.kind, f.msg = "kMessage", g.wrapper(where, t)
	case t.Kind() == reflect.Slice:
		f.flags = append(f.flags, "fRepeated")
		e := t.Elem()
		if e.Kind() == reflect.Pointer {
			g.warn("%s: slice of pointers", where)
			e = e.Elem()
		}
		f.kind, f.msg = g.elem(where, e)
	default:
		f.kind, f.msg = g.elem(where, t)
	}
	return f, true
}

func (g *gen) elem(where string, t reflect.Type) (kind, msgName string) {
	if t.Kind() == reflect.Struct {
		return "kMessage", g.message(t)
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
		return "kBytes", ""
	}
	if t.Kind() == reflect.Slice {
		return "kMessage", g.wrapper(where, t)
	}
	k, ok := kindNames[t.Kind()]
	if !ok {
		panic(fmt.Sprintf("%s: unsupported Go kind %s", where, t))
	}
	return k, ""
}

// wrapper registers the message protobuf uses for a named []string.
func (g *gen) wrapper(where string, t reflect.Type) string {
	if t.Elem().Kind() != reflect.String || t.Name() == "" {
		panic(where + ": unsupported slice wrapper " + t.String())
	}
	name := protoName(t)
	if _, ok := g.msgs[name]; !ok {
		g.msgs[name] = &msg{name: name, special: "sStringArray",
			fields: []fld{{num: 1, json: "items", kind: "kString", flags: []string{"fRepeated"}}}}
	}
	return name
}

// mapEntry registers the synthetic key/value message of a map field.
func (g *gen) mapEntry(where string, t reflect.Type) string {
	if t.Key().Kind() != reflect.String {
		panic(where + ": map key is not a string")
	}
	vk, vm := g.elem(where, t.Elem())
	name := "map." + strings.TrimPrefix(vk, "k")
	if vm != "" {
		name = "map." + vm
	}
	if _, ok := g.msgs[name]; !ok {
		g.msgs[name] = &msg{name: name, special: "sMapEntry", fields: []fld{
			{num: 1, json: "key", kind: "kString"},
			{num: 2, json: "value", kind: vk, msg: vm},
		}}
	}
	return name
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

type gvkEntry struct{ apiVersion, kind, msg string }

func main() {
	out := flag.String("o", "zz_schema.go", "output file")
	version := flag.String("version", "", "k8s.io/api version, recorded in the header")
	flag.Parse()
	g := &gen{msgs: map[string]*msg{}}
	var gvks []gvkEntry
	metaPkg := reflect.TypeOf(metav1.Status{}).PkgPath()
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || t.Kind() != reflect.Struct {
			continue
		}
		if !hasProtobuf(t) {
			continue
		}
		// metav1's option kinds and WatchEvent are registered in every group
		// version; keep only the unversioned ones (Status, in "v1") and the
		// group's own types.
		if t.PkgPath() == metaPkg && !(gvk.Group == "" && gvk.Version == "v1") {
			continue
		}
		gvks = append(gvks, gvkEntry{gvk.GroupVersion().String(), gvk.Kind, g.message(t)})
	}
	// The wire wrappers every answer needs, reachable by name.
	for _, v := range []any{runtime.Unknown{}, metav1.WatchEvent{}, metav1.List{}, metav1.PartialObjectMetadataList{}, metav1.Status{}} {
		g.message(reflect.TypeOf(v))
	}
	for _, gv := range []schema.GroupVersion{{Group: "meta.k8s.io", Version: "v1"}} {
		for _, v := range []any{metav1.PartialObjectMetadata{}, metav1.PartialObjectMetadataList{}} {
			t := reflect.TypeOf(v)
			gvks = append(gvks, gvkEntry{gv.String(), t.Name(), g.message(t)})
		}
	}
	src := g.render(gvks, *version)
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		panic(err)
	}
	for _, w := range g.warns {
		fmt.Fprintln(os.Stderr, "gen:", w)
	}
	fmt.Fprintf(os.Stderr, "gen: %d messages, %d kinds\n", len(g.msgs), len(gvks))
}

func hasProtobuf(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if _, ok := t.Field(i).Tag.Lookup("protobuf"); ok {
			return true
		}
	}
	return false
}

// strtab interns strings into one constant, each referred to as off<<8|len.
type strtab struct {
	b   strings.Builder
	off map[string]int
}

func (s *strtab) ref(v string) string {
	if len(v) > 255 {
		panic("name too long: " + v)
	}
	o, ok := s.off[v]
	if !ok {
		if i := strings.Index(s.b.String(), v); i >= 0 {
			o = i
		} else {
			o = s.b.Len()
			s.b.WriteString(v)
		}
		s.off[v] = o
	}
	return fmt.Sprintf("%#x", o<<8|len(v))
}

func (g *gen) render(gvks []gvkEntry, version string) []byte {
	names := make([]string, 0, len(g.msgs))
	for n := range g.msgs {
		names = append(names, n)
	}
	sort.Strings(names)
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	sort.Slice(gvks, func(i, j int) bool {
		if gvks[i].apiVersion != gvks[j].apiVersion {
			return gvks[i].apiVersion < gvks[j].apiVersion
		}
		return gvks[i].kind < gvks[j].kind
	})
	st := &strtab{off: map[string]int{}}
	var mb, fb, nb, kb bytes.Buffer
	nfield, nbynum := 0, 0
	for _, n := range names {
		m := g.msgs[n]
		maxNum := 0
		for _, f := range m.fields {
			maxNum = max(maxNum, f.num)
		}
		special := m.special
		if special == "" {
			special = "0"
		}
		fmt.Fprintf(&mb, "\t{%s, %d, %d, %d, %d, %s},\n", st.ref(n), nfield, len(m.fields), nbynum, maxNum, special)
		byNum := make([]byte, maxNum)
		for i, f := range m.fields {
			if byNum[f.num-1] != 0 {
				panic(fmt.Sprintf("%s: field number %d twice", n, f.num))
			}
			byNum[f.num-1] = byte(i + 1)
			typ := 0
			if f.msg != "" {
				typ = index[f.msg]
			}
			flags := strings.Join(f.flags, "|")
			if flags == "" {
				flags = "0"
			}
			fmt.Fprintf(&fb, "\t{%s, %d, %d, %s, %s},\n", st.ref(f.json), f.num, typ, f.kind, flags)
		}
		if len(m.fields) > 255 {
			panic(n + ": too many fields")
		}
		nb.Write(byNum)
		nfield += len(m.fields)
		nbynum += maxNum
	}
	for _, k := range gvks {
		fmt.Fprintf(&kb, "\t{%s, %s, %d},\n", st.ref(k.apiVersion), st.ref(k.kind), index[k.msg])
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by kubeproto/gen/gen.sh from k8s.io/api %s; DO NOT EDIT.\n\n", version)
	b.WriteString("package kubeproto\n\n")
	fmt.Fprintf(&b, "// SchemaVersion is the k8s.io/api version the table was generated from.\nconst SchemaVersion = %q\n\n", version)
	fmt.Fprintf(&b, "const names = %q\n\n", st.b.String())
	fmt.Fprintf(&b, "// byNum[m.byNum+n-1] is 1 + the position of field number n in message m, or 0.\nconst byNum = %q\n\n", nb.String())
	fmt.Fprintf(&b, "var messages = [...]message{\n%s}\n\n", mb.String())
	fmt.Fprintf(&b, "var fields = [...]field{\n%s}\n\n", fb.String())
	fmt.Fprintf(&b, "var kinds = [...]gvk{\n%s}\n", kb.String())
	src, err := format.Source(b.Bytes())
	if err != nil {
		os.Stdout.Write(b.Bytes())
		panic(err)
	}
	return src
}
