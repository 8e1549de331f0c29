package fakeapiserver

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The columns of kubectl get, per kind, as kube-apiserver's printers make
// them (pkg/printers/internalversion in kubernetes). The server always sends
// the wide columns (priority 1); kubectl shows them with -o wide.

type column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int    `json:"priority"`
}

// printer makes the cells of one kind's rows.
type printer struct {
	columns    []column
	cells      func(o map[string]any, now time.Time) []any
	conditions func(o map[string]any) []any
}

func col(name, desc string) column { return column{Name: name, Type: "string", Description: desc} }
func wide(name, desc string) column {
	return column{Name: name, Type: "string", Description: desc, Priority: 1}
}
func noConditions(map[string]any) []any { return nil }
func nameCol() column {
	return column{Name: "Name", Type: "string", Format: "name", Description: "the object's name"}
}
func ageCol() column { return col("Age", "time since the object was created") }
func age(o map[string]any, now time.Time) string {
	ts, err := time.Parse(time.RFC3339, field(o, "metadata", "creationTimestamp"))
	if err != nil {
		return "<unknown>"
	}
	return humanDuration(now.Sub(ts))
}

func printerFor(kind string) printer {
	switch kind {
	case "Pod":
		return podPrinter
	case "ConfigMap":
		return printer{columns: []column{nameCol(), col("Data", "number of data keys"), ageCol()}, conditions: noConditions,
			cells: func(o map[string]any, now time.Time) []any {
				return []any{field(o, "metadata", "name"), len(obj(o, "data")) + len(obj(o, "binaryData")), age(o, now)}
			}}
	case "Secret":
		return printer{columns: []column{nameCol(), col("Type", "the secret's type"), col("Data", "number of data keys"), ageCol()},
			conditions: noConditions, cells: func(o map[string]any, now time.Time) []any {
				return []any{field(o, "metadata", "name"), field(o, "type"), len(obj(o, "data")), age(o, now)}
			}}
	case "Namespace":
		return printer{columns: []column{nameCol(), col("Status", "the namespace's phase"), ageCol()}, conditions: noConditions,
			cells: func(o map[string]any, now time.Time) []any {
				return []any{field(o, "metadata", "name"), field(o, "status", "phase"), age(o, now)}
			}}
	case "Deployment":
		return deploymentPrinter
	case "Service":
		return servicePrinter
	case "Job":
		return jobPrinter
	case "ReplicaSet":
		return replicaSetPrinter
	case "StatefulSet":
		return statefulSetPrinter
	}
	return printer{columns: []column{nameCol(), ageCol()}, conditions: noConditions,
		cells: func(o map[string]any, now time.Time) []any { return []any{field(o, "metadata", "name"), age(o, now)} }}
}

var deploymentPrinter = printer{
	columns: []column{nameCol(), col("Ready", "ready and desired replicas"), col("Up-to-date", "updated replicas"),
		col("Available", "available replicas"), ageCol(), wide("Containers", "container names of the template"),
		wide("Images", "images of the template"), wide("Selector", "the pod selector")},
	conditions: noConditions,
	cells: func(o map[string]any, now time.Time) []any {
		desired := 1
		if v, ok := obj(o, "spec")["replicas"].(float64); ok {
			desired = int(v)
		}
		var names, images []string
		for _, c := range list(obj(obj(obj(o, "spec"), "template"), "spec"), "containers") {
			names, images = append(names, field(c, "name")), append(images, field(c, "image"))
		}
		return []any{field(o, "metadata", "name"), fmt.Sprintf("%d/%d", num(o, "status", "readyReplicas"), desired),
			num(o, "status", "updatedReplicas"), num(o, "status", "availableReplicas"), age(o, now),
			strings.Join(names, ","), strings.Join(images, ","), selectorString(obj(obj(o, "spec"), "selector"))}
	},
}

func obj(m map[string]any, key string) map[string]any { v, _ := m[key].(map[string]any); return v }

func list(m map[string]any, key string) []map[string]any {
	raw, _ := m[key].([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, r := range raw {
		if o, ok := r.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

func num(m map[string]any, path ...string) int {
	for _, k := range path[:len(path)-1] {
		m = obj(m, k)
	}
	v, _ := m[path[len(path)-1]].(float64)
	return int(v)
}

// humanDuration writes a duration as kubectl's AGE column does: exact
// seconds up to 2 minutes, then coarser the longer it gets.
func humanDuration(d time.Duration) string {
	sec := int(d.Seconds())
	switch {
	case sec < -1:
		return "<invalid>"
	case sec < 0:
		return "0s"
	case sec < 120:
		return strconv.Itoa(sec) + "s"
	}
	pair := func(a int, au string, b int, bu string) string {
		if b == 0 {
			return strconv.Itoa(a) + au
		}
		return strconv.Itoa(a) + au + strconv.Itoa(b) + bu
	}
	min, hours := int(d/time.Minute), int(d/time.Hour)
	switch days := hours / 24; {
	case min < 10:
		return pair(min, "m", sec%60, "s")
	case min < 180:
		return strconv.Itoa(min) + "m"
	case hours < 8:
		return pair(hours, "h", min%60, "m")
	case hours < 48:
		return strconv.Itoa(hours) + "h"
	case hours < 24*8:
		return pair(days, "d", hours%24, "h")
	case hours < 24*365*2:
		return strconv.Itoa(days) + "d"
	case hours < 24*365*8:
		return pair(days/365, "y", days%365, "d")
	default:
		return strconv.Itoa(days/365) + "y"
	}
}
