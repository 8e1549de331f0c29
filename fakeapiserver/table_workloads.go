package fakeapiserver

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// The columns of services, jobs, replica sets and stateful sets, as
// kube-apiserver's printers make them (printService, printJob,
// printReplicaSet, printStatefulSet in pkg/printers/internalversion).

var servicePrinter = printer{
	columns: []column{nameCol(), col("Type", "the service's type"), col("Cluster-IP", "the cluster IP"),
		col("External-IP", "external IPs"), col("Port(s)", "the ports"), ageCol(), wide("Selector", "the pod selector")},
	conditions: noConditions,
	cells: func(o map[string]any, now time.Time) []any {
		spec := obj(o, "spec")
		clusterIP := "<none>"
		if ips, _ := spec["clusterIPs"].([]any); len(ips) > 0 {
			clusterIP = fmt.Sprint(ips[0])
		}
		var ports []string
		for _, p := range list(spec, "ports") {
			s := fmt.Sprintf("%d/%s", num(p, "port"), field(p, "protocol"))
			if np := num(p, "nodePort"); np > 0 {
				s = fmt.Sprintf("%d:%d/%s", num(p, "port"), np, field(p, "protocol"))
			}
			ports = append(ports, s)
		}
		portCell := strings.Join(ports, ",")
		if portCell == "" {
			portCell = "<none>"
		}
		return []any{field(o, "metadata", "name"), field(spec, "type"), clusterIP, serviceExternalIP(o), portCell,
			age(o, now), formatLabels(obj(spec, "selector"))}
	},
}

// serviceExternalIP is getServiceExternalIP.
func serviceExternalIP(o map[string]any) string {
	spec := obj(o, "spec")
	var external []string
	for _, ip := range listAny(spec["externalIPs"]) {
		external = append(external, fmt.Sprint(ip))
	}
	switch field(spec, "type") {
	case "ClusterIP", "NodePort":
		if len(external) > 0 {
			return strings.Join(external, ",")
		}
		return "<none>"
	case "LoadBalancer":
		var lb []string
		for _, in := range list(obj(obj(o, "status"), "loadBalancer"), "ingress") {
			if ip := field(in, "ip"); ip != "" {
				lb = append(lb, ip)
			} else if h := field(in, "hostname"); h != "" {
				lb = append(lb, h)
			}
		}
		sort.Strings(lb)
		if all := append(lb, external...); len(all) > 0 {
			return strings.Join(all, ",")
		}
		return "<pending>"
	case "ExternalName":
		return field(spec, "externalName")
	}
	return "<unknown>"
}

var jobPrinter = printer{
	columns: []column{nameCol(), col("Status", "the job's status"), col("Completions", "succeeded and desired completions"),
		col("Duration", "time the job ran"), ageCol(), wide("Containers", "container names of the template"),
		wide("Images", "images of the template"), wide("Selector", "the pod selector")},
	conditions: noConditions,
	cells: func(o map[string]any, now time.Time) []any {
		spec, st := obj(o, "spec"), obj(o, "status")
		succeeded := num(st, "succeeded")
		var completions string
		switch _, set := spec["completions"]; {
		case set && spec["completions"] != nil:
			completions = fmt.Sprintf("%d/%d", succeeded, num(spec, "completions"))
		case num(spec, "parallelism") > 1:
			completions = fmt.Sprintf("%d/1 of %d", succeeded, num(spec, "parallelism"))
		default:
			completions = fmt.Sprintf("%d/1", succeeded)
		}
		var duration string
		if start, err := time.Parse(time.RFC3339, field(st, "startTime")); err == nil {
			end := now
			if done, err := time.Parse(time.RFC3339, field(st, "completionTime")); err == nil {
				end = done
			}
			duration = humanDuration(end.Sub(start))
		}
		names, images := containerCells(spec)
		return []any{field(o, "metadata", "name"), jobStatus(o), completions, duration, age(o, now), names, images,
			selectorOrNone(obj(spec, "selector"))}
	},
}

func jobStatus(o map[string]any) string {
	has := func(typ string) bool {
		for _, c := range list(obj(o, "status"), "conditions") {
			if field(c, "type") == typ && field(c, "status") == "True" {
				return true
			}
		}
		return false
	}
	switch {
	case has("Complete"):
		return "Complete"
	case has("Failed"):
		return "Failed"
	case field(o, "metadata", "deletionTimestamp") != "":
		return "Terminating"
	case has("Suspended"):
		return "Suspended"
	case has("FailureTarget"):
		return "FailureTarget"
	}
	return "Running"
}

var replicaSetPrinter = printer{
	columns: []column{nameCol(), col("Desired", "desired replicas"), col("Current", "current replicas"),
		col("Ready", "ready replicas"), ageCol(), wide("Containers", "container names of the template"),
		wide("Images", "images of the template"), wide("Selector", "the pod selector")},
	conditions: noConditions,
	cells: func(o map[string]any, now time.Time) []any {
		spec, st := obj(o, "spec"), obj(o, "status")
		names, images := containerCells(spec)
		return []any{field(o, "metadata", "name"), int64(num(spec, "replicas")), int64(num(st, "replicas")),
			int64(num(st, "readyReplicas")), age(o, now), names, images, selectorOrNone(obj(spec, "selector"))}
	},
}

var statefulSetPrinter = printer{
	columns: []column{nameCol(), col("Ready", "ready and desired replicas"), ageCol(),
		wide("Containers", "container names of the template"), wide("Images", "images of the template")},
	conditions: noConditions,
	cells: func(o map[string]any, now time.Time) []any {
		spec, st := obj(o, "spec"), obj(o, "status")
		names, images := containerCells(spec)
		return []any{field(o, "metadata", "name"), fmt.Sprintf("%d/%d", num(st, "readyReplicas"), num(spec, "replicas")),
			age(o, now), names, images}
	},
}

// containerCells is layoutContainerCells: the template's container names
// and images, comma-separated.
func containerCells(spec map[string]any) (string, string) {
	var names, images []string
	for _, c := range list(obj(obj(spec, "template"), "spec"), "containers") {
		names, images = append(names, field(c, "name")), append(images, field(c, "image"))
	}
	return strings.Join(names, ","), strings.Join(images, ",")
}

// selectorOrNone is metav1.FormatLabelSelector: "<none>" for no selector.
func selectorOrNone(sel map[string]any) string {
	if s := selectorString(sel); s != "" {
		return s
	}
	return "<none>"
}

// formatLabels is labels.FormatLabels: sorted k=v pairs, "<none>" for none.
func formatLabels(m map[string]any) string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, k+"="+fmt.Sprint(v))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "<none>"
	}
	return strings.Join(parts, ",")
}

func listAny(v any) []any { l, _ := v.([]any); return l }
