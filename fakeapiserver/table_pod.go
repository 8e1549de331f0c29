package fakeapiserver

import (
	"fmt"
	"strconv"
	"time"
)

// podPrinter makes kubectl get pods' row: Name, Ready, Status, Restarts,
// Age, and the wide IP, Node, Nominated Node and Readiness Gates.
var podPrinter = printer{
	columns: []column{nameCol(), col("Ready", "ready and total containers"), col("Status", "the pod's aggregate status"),
		col("Restarts", "container restarts"), ageCol(), wide("IP", "the pod's IP"), wide("Node", "the node it runs on"),
		wide("Nominated Node", "the node the scheduler nominated"), wide("Readiness Gates", "readiness gates met")},
	cells: func(o map[string]any, now time.Time) []any {
		spec, st := obj(o, "spec"), obj(o, "status")
		ready, restarts, reason := podContainers(spec, st)
		if phase := field(st, "phase"); field(o, "metadata", "deletionTimestamp") != "" && phase != "Succeeded" && phase != "Failed" {
			reason = "Terminating"
		}
		return []any{field(o, "metadata", "name"), fmt.Sprintf("%d/%d", ready, len(list(spec, "containers"))), reason,
			strconv.Itoa(restarts), age(o, now), orNone(podIP(st)), orNone(field(spec, "nodeName")),
			orNone(field(st, "nominatedNodeName")), readinessGates(spec, st)}
	},
	conditions: func(o map[string]any) []any {
		switch field(o, "status", "phase") {
		case "Succeeded":
			return []any{map[string]any{"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}}
		case "Failed":
			return []any{map[string]any{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}}
		}
		return nil
	},
}

// podContainers counts ready containers and restarts and finds the Status
// cell: the pod's reason or phase, overridden by a waiting or terminated
// container's reason (init containers are not looked at).
func podContainers(spec, st map[string]any) (ready, restarts int, reason string) {
	reason = field(st, "phase")
	if r := field(st, "reason"); r != "" {
		reason = r
	}
	cs := list(st, "containerStatuses")
	for i := len(cs) - 1; i >= 0; i-- {
		c := cs[i]
		restarts += num(c, "restartCount")
		state := obj(c, "state")
		switch {
		case field(state, "waiting", "reason") != "":
			reason = field(state, "waiting", "reason")
		case obj(state, "terminated") != nil:
			reason = field(state, "terminated", "reason")
			if reason == "" {
				reason = "ExitCode:" + strconv.Itoa(num(state, "terminated", "exitCode"))
			}
		case c["ready"] == true && obj(state, "running") != nil:
			ready++
		}
	}
	return ready, restarts, reason
}

func podIP(st map[string]any) string {
	if ips := list(st, "podIPs"); len(ips) > 0 {
		return field(ips[0], "ip")
	}
	return ""
}

func readinessGates(spec, st map[string]any) string {
	gates := list(spec, "readinessGates")
	if len(gates) == 0 {
		return "<none>"
	}
	met := 0
	for _, g := range gates {
		for _, c := range list(st, "conditions") {
			if field(c, "type") == field(g, "conditionType") {
				if field(c, "status") == "True" {
					met++
				}
				break
			}
		}
	}
	return fmt.Sprintf("%d/%d", met, len(gates))
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
