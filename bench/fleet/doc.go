// Package fleet measures what a fleet of small agents costs the API server
// they share: N agents, each with a connection of its own, in the two
// shapes users run (one agent per node watching its node's pods by field
// selector, and N replicas sharding one resource), through three phases:
// the initial storm (every agent starts at once), a steady churn (writes
// at a fixed rate while every watch is open) and a restart storm (every
// agent stops and starts again at once).
//
// The agents of one mode run as goroutines in a child process of their
// own (zerokube's: the fleet command, or the benchmark's test binary, run
// again with RoleEnv set; client-go's: bench/clientgo/cmd/cgfleet, in the
// nested module), so the
// driver reads three processes' CPU from /proc over the same window: the
// API server's, etcd's, and the agents'. The child speaks a line protocol
// on its stdin and stdout (child.go); the driver (driver.go) starts one
// child per mode against one server and loads the cluster once.
//
// It also measures the footprint of one minimal agent binary
// (footprint.go): its size, its resident memory once synced and after an
// idle minute, its CPU while idle, and the time from exec to synced.
//
// Linux only: everything it measures comes from /proc.
package fleet
