package fakeapiserver

import (
	"strings"

	"github.com/zerokube/zerokube/kubeproto"
)

// OpenAPI v3 schemas of the built-in kinds, made from what the project
// has: kubeproto's table of every message (JSON names, types, lists, maps,
// the special forms) and strategic_schema.go's patch strategies. They say
// what kubectl explain and kubectl's patch computation read: each field's
// name and type, and x-kubernetes-patch-strategy/-merge-key. They carry
// no descriptions, defaults, enums, required lists or validations: the
// table has none. A custom resource has no schema here (its CRD's schema
// is not read).

// openAPIName is a message's OpenAPI name: "k8s.io.api.apps.v1.Deployment"
// becomes "io.k8s.api.apps.v1.Deployment".
func openAPIName(protoName string) string {
	if rest, ok := strings.CutPrefix(protoName, "k8s.io."); ok {
		return "io.k8s." + rest
	}
	return protoName
}

// patchTag is a field's patch strategy and merge key.
type patchTag struct{ strategy, key string }

// openAPISchemas builds components.schemas for the kinds of one group
// version: each kind's message and every message it reaches.
func openAPISchemas(group, version string, kinds []string) map[string]any {
	apiVersion := version
	if group != "" {
		apiVersion = group + "/" + version
	}
	g := &schemaGen{out: map[string]any{}, tags: map[string]map[string]patchTag{}}
	for _, kind := range kinds {
		m, ok := kubeproto.MessageFor(apiVersion, kind)
		if !ok {
			continue
		}
		if res := smpSchemaByKind(group, kind); res != nil {
			g.collectTags(m, res)
		}
	}
	for _, kind := range kinds {
		m, ok := kubeproto.MessageFor(apiVersion, kind)
		if !ok {
			continue
		}
		s := g.add(m)
		props, _ := s["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			s["properties"] = props
		}
		props["apiVersion"], props["kind"] = map[string]any{"type": "string"}, map[string]any{"type": "string"}
		s["x-kubernetes-group-version-kind"] = []any{map[string]any{"group": group, "version": version, "kind": kind}}
	}
	return g.out
}

// smpSchemaByKind finds the strategic-merge schema of a built-in kind.
func smpSchemaByKind(group, kind string) smpSchema {
	for _, res := range builtins() {
		if res.GVR.Group == group && res.Kind == kind {
			return smpSchemas[res.GVR]
		}
	}
	return nil
}

type schemaGen struct {
	out  map[string]any
	tags map[string]map[string]patchTag // message name → JSON field → tag
}

// collectTags walks m along schema, noting each field's patch tags on the
// message that declares it.
func (g *schemaGen) collectTags(m kubeproto.Message, schema smpSchema) {
	for name, f := range schema {
		field, ok := m.FieldByJSON(name)
		if !ok {
			continue
		}
		owner := g.tags[m.Name()]
		if owner == nil {
			owner = map[string]patchTag{}
			g.tags[m.Name()] = owner
		}
		if f.merge {
			owner[name] = patchTag{strategy: "merge", key: f.key}
		}
		if f.elem != nil && field.Message().Valid() {
			g.collectTags(field.Message(), f.elem)
		}
	}
}

// add puts m's schema (and those it refers to) in out, and returns it.
func (g *schemaGen) add(m kubeproto.Message) map[string]any {
	name := openAPIName(m.Name())
	if s, ok := g.out[name].(map[string]any); ok {
		return s
	}
	s := map[string]any{}
	g.out[name] = s // before the fields: messages refer to themselves (JSONSchemaProps)
	if special := specialSchema(m.Special()); special != nil {
		for k, v := range special {
			s[k] = v
		}
		return s
	}
	props := map[string]any{}
	g.properties(m, props)
	s["type"] = "object"
	if len(props) > 0 {
		s["properties"] = props
	}
	return s
}

// properties adds m's fields to props, an inline field's as its own.
func (g *schemaGen) properties(m kubeproto.Message, props map[string]any) {
	for i := range m.NumFields() {
		f := m.Field(i)
		if f.Inline() {
			g.properties(f.Message(), props)
			continue
		}
		fs := g.fieldSchema(f)
		if tag, ok := g.tags[m.Name()][f.JSONName()]; ok {
			fs["x-kubernetes-patch-strategy"] = tag.strategy
			if tag.key != "" {
				fs["x-kubernetes-patch-merge-key"] = tag.key
			}
		}
		props[f.JSONName()] = fs
	}
}

func (g *schemaGen) fieldSchema(f kubeproto.Field) map[string]any {
	if f.Map() {
		entry := f.Message()
		var value map[string]any
		if v, ok := entry.FieldByNumber(2); ok {
			value = g.valueSchema(v)
		}
		return map[string]any{"type": "object", "additionalProperties": value}
	}
	v := g.valueSchema(f)
	if f.Repeated() {
		return map[string]any{"type": "array", "items": v}
	}
	return v
}

// valueSchema is the schema of one value of f: a reference for a message.
func (g *schemaGen) valueSchema(f kubeproto.Field) map[string]any {
	switch f.Kind() {
	case kubeproto.KindString:
		return map[string]any{"type": "string"}
	case kubeproto.KindBytes:
		return map[string]any{"type": "string", "format": "byte"}
	case kubeproto.KindBool:
		return map[string]any{"type": "boolean"}
	case kubeproto.KindInt32, kubeproto.KindUint32:
		return map[string]any{"type": "integer", "format": "int32"}
	case kubeproto.KindInt64, kubeproto.KindUint64:
		return map[string]any{"type": "integer", "format": "int64"}
	case kubeproto.KindFloat64:
		return map[string]any{"type": "number", "format": "double"}
	}
	m := f.Message()
	g.add(m)
	// allOf around the reference, as kube-apiserver writes a field (its
	// description beside it), which is how kubectl explain names the type.
	return map[string]any{"allOf": []any{map[string]any{"$ref": "#/components/schemas/" + openAPIName(m.Name())}}}
}

// specialSchema is the schema of a message whose JSON is not its shape,
// as kube-openapi declares them (metav1.Time a date-time string,
// IntOrString an int-or-string, …); nil for an ordinary message.
func specialSchema(s kubeproto.Special) map[string]any {
	switch s {
	case kubeproto.SpecialTime, kubeproto.SpecialMicroTime:
		return map[string]any{"type": "string", "format": "date-time"}
	case kubeproto.SpecialDuration, kubeproto.SpecialQuantity:
		return map[string]any{"type": "string"}
	case kubeproto.SpecialIntOrString:
		return map[string]any{"type": "string", "format": "int-or-string", "x-kubernetes-int-or-string": true}
	case kubeproto.SpecialFieldsV1, kubeproto.SpecialRawExtension, kubeproto.SpecialUnknown:
		return map[string]any{"type": "object"}
	case kubeproto.SpecialStringArray:
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	}
	return nil
}
