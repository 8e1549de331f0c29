# summarize.awk turns `go test -bench` output (any -count) into markdown:
# one table per package, one row per benchmark, one column per unit, each
# cell the median of the runs; then the issue's targets, checked against
# those medians. Portable awk (no gawk extensions): run.sh calls it.

function median(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) { # insertion sort: a handful of runs
		t = a[i] + 0
		for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	if (n % 2) return a[(n + 1) / 2]
	return (a[n / 2] + a[n / 2 + 1]) / 2
}

function fmtnum(v) {
	if (v == "") return ""
	if (v >= 1e9) return sprintf("%.3gG", v / 1e9)
	if (v >= 1e6) return sprintf("%.3gM", v / 1e6)
	if (v >= 1e4) return sprintf("%.3gk", v / 1e3)
	if (v >= 100 || v == int(v)) return sprintf("%d", v + 0.5) # a median of two runs can be x.5
	return sprintf("%.3g", v)
}

# value of unit u for benchmark b (without the -GOMAXPROCS suffix) of
# package pk, or "".
function get(pk, b, u) {
	if ((pk "|" b, u) in vals) return median(vals[pk "|" b, u])
	return ""
}

function cell(v, u) {
	if (v == "" || u != "ns/op") return fmtnum(v)
	if (v >= 1e9) return sprintf("%.3g s", v / 1e9)
	if (v >= 1e6) return sprintf("%.3g ms", v / 1e6)
	if (v >= 1e3) return sprintf("%.3g µs", v / 1e3)
	return sprintf("%.3g ns", v)
}

function target(what, b, u, op, limit) { ptarget(what, "bench", b, u, op, limit) }

# otarget is target for a benchmark that only some runs have (the 50,000-pod
# variants run with -full only): no row at all when it did not run.
function otarget(what, b, u, op, limit) {
	if (get("github.com/zerokube/zerokube/bench", b, u) != "") target(what, b, u, op, limit)
}

# span returns "min–max" of the runs of benchmark b of package pk, unit u,
# and sets lo and hi (globals) to them.
function span(pk, b, u,    n, a, i) {
	n = split(vals[pk "|" b, u], a, " ")
	lo = a[1] + 0; hi = a[1] + 0
	for (i = 2; i <= n; i++) { if (a[i] + 0 < lo) lo = a[i] + 0; if (a[i] + 0 > hi) hi = a[i] + 0 }
	return n > 1 ? fmtnum(lo) "–" fmtnum(hi) : "one run"
}

# ptarget checks benchmark b of package github.com/zerokube/zerokube/<p>:
# met when every run meets the goal, missed when none does, and inside the
# noise when the runs fall on both sides of it, whatever the median says.
function ptarget(what, p, b, u, op, limit,    pk, v, sp, good, bad, verdict) {
	pk = "github.com/zerokube/zerokube/" p
	v = get(pk, b, u)
	if (v == "") { printf "| %s | %s | — | | %s %s | not run |\n", what, u, op, limit; return }
	sp = span(pk, b, u)
	good = (op == "≤") ? (hi <= limit + 0) : (lo >= limit + 0)
	bad = (op == "≤") ? (lo > limit + 0) : (hi < limit + 0)
	verdict = good ? "met" : (bad ? "**missed**" : "inside the noise")
	printf "| %s | %s | %s | %s | %s %s | %s |\n", what, u, fmtnum(v), sp, op, limit, verdict
}

/^pkg: / { pkg = $2; if (!(pkg in seenpkg)) { seenpkg[pkg] = 1; pkgs[++npkg] = pkg } }

/^Benchmark/ && NF >= 4 {
	name = $1
	sub(/^Benchmark/, "", name)
	sub(/-[0-9]+$/, "", name)
	top = name
	sub(/\/.*/, "", top)
	g = pkg "|" top # one table per top-level benchmark: its units only
	if (!(g in seengroup)) { seengroup[g] = 1; ng[pkg]++; group[pkg, ng[pkg]] = g }
	if (!((g, name) in seen)) { seen[g, name] = 1; nb[g]++; bench[g, nb[g]] = name }
	for (i = 3; i + 1 <= NF; i += 2) {
		u = $(i + 1)
		if (!((g, u) in seenunit)) { seenunit[g, u] = 1; nu[g]++; unit[g, nu[g]] = u }
		k = pkg "|" name
		vals[k, u] = ((k, u) in vals) ? vals[k, u] " " $i : $i
	}
}

END {
	print "## Targets (issue #8), medians of this run"
	print ""
	print "| target | unit | median | runs (min–max) | goal | |"
	print "|---|---|---|---|---|---|"
	target("sync 5k pods from memory, raw, vs decode floor", "SyncMemory/pods=5000/type=raw", "x-floor", "≤", 3)
	target("sync 5k pods from memory, slim, vs decode floor", "SyncMemory/pods=5000/type=slim", "x-floor", "≤", 2)
	target("same, CPU time of the sync vs CPU time of the floor, raw", "SyncMemory/pods=5000/type=raw", "cpu-x-floor", "≤", 3)
	target("same, CPU time, slim", "SyncMemory/pods=5000/type=slim", "cpu-x-floor", "≤", 2)
	target("sync 5k pods over loopback from fakeapiserver in its own process, raw", "SyncProcess/pods=5000/list/type=raw", "x-floor", "≤", 3)
	target("same, slim", "SyncProcess/pods=5000/list/type=slim", "x-floor", "≤", 2)
	target("same, the client's CPU time vs the floor's, raw", "SyncProcess/pods=5000/list/type=raw", "cpu-x-floor", "≤", 3)
	target("same, the client's CPU time, slim", "SyncProcess/pods=5000/list/type=slim", "cpu-x-floor", "≤", 2)
	target("sync 5k pods over loopback, server in the same process, raw", "SyncLoopback/pods=5000/list/type=raw", "x-floor", "≤", 3)
	target("same, slim", "SyncLoopback/pods=5000/list/type=slim", "x-floor", "≤", 2)
	target("same, CPU time (the in-process server's included), raw", "SyncLoopback/pods=5000/list/type=raw", "cpu-x-floor", "≤", 3)
	target("same, CPU time (the in-process server's included), slim", "SyncLoopback/pods=5000/list/type=slim", "cpu-x-floor", "≤", 2)
	target("retained per pod, raw, vs its JSON", "SyncMemory/pods=5000/type=raw", "x-json", "≤", 1.3)
	target("retained per pod, slim (meta.SlimMeta)", "SyncMemory/pods=5000/type=slim", "x-json", "≤", 0.2)
	target("retained per pod, slim with the whole ObjectMeta (managedFields dropped, the default)", "SyncMemory/pods=5000/type=slim-fullmeta", "x-json", "≤", 0.2)
	target("retained per pod, slim with the whole ObjectMeta and managedFields kept", "SyncMemory/pods=5000/type=slim-fullmeta-keepmf", "x-json", "≤", 0.2)
	otarget("sync 50k pods from memory, CPU time vs the floor's, raw", "SyncMemory/pods=50000/type=raw", "cpu-x-floor", "≤", 3)
	otarget("sync 50k pods from memory, CPU time vs the floor's, slim", "SyncMemory/pods=50000/type=slim", "cpu-x-floor", "≤", 2)
	otarget("sync 50k pods over loopback, CPU time (the in-process server's included), raw", "SyncLoopback/pods=50000/list/type=raw", "cpu-x-floor", "≤", 3)
	otarget("sync 50k pods over loopback, CPU time (the in-process server's included), slim", "SyncLoopback/pods=50000/list/type=slim", "cpu-x-floor", "≤", 2)
	otarget("retained per pod at 50k pods, raw, vs its JSON", "SyncMemory/pods=50000/type=raw", "x-json", "≤", 1.3)
	otarget("retained per pod at 50k pods, slim (meta.SlimMeta)", "SyncMemory/pods=50000/type=slim", "x-json", "≤", 0.2)
	# client-go v0.37's typed informer: 19.5 KB per pod of 9.2 KB JSON
	# (2.1x), managedFields kept. Our size=9k pods are 9.5 KB, 4.3 KB of it
	# managedFields (clientGoConfig in fixture_test.go).
	target("client-go workload (size=9k, 9.5 KB pods): retained per pod, full type, managedFields kept, vs client-go's 19.5 KB per 9.2 KB pod", "Retained/pods=5000/size=9k/type=full", "B/obj", "≤", 19500)
	target("same, vs its JSON (client-go: 19.5 / 9.2 KB)", "Retained/pods=5000/size=9k/type=full", "x-json", "≤", 2.12)
	target("client-go workload: informer sync, full type, managedFields dropped (the default)", "SyncMemory/pods=5000/size=9k/type=full", "B/obj", "≤", 19500)
	target("client-go workload: informer sync, full type, managedFields kept", "SyncMemory/pods=5000/size=9k/type=full-keepmf", "B/obj", "≤", 19500)
	target("client-go workload: informer sync, slim (meta.SlimMeta)", "SyncMemory/pods=5000/size=9k/type=slim", "B/obj", "≤", 19500)
	target("watch, 1 KiB pods, 1 handler, saturation", "Watch/handlers=1/saturation", "events/s", "≥", 50000)
	target("watch p99 at 1k events/s, 1 handler", "Watch/handlers=1/rate=1000", "p99-µs", "≤", 2000)
	target("watch p99 at 1k events/s, 10 handlers", "Watch/handlers=10/rate=1000", "p99-µs", "≤", 2000)
	ptarget("FIFO pop, DeltaFIFO", "fifo", "Pop/DeltaFIFO", "allocs/op", "≤", 0)
	ptarget("FIFO pop, InOrder", "fifo", "Pop/InOrder", "allocs/op", "≤", 0)
	ptarget("index lookup into a caller's slice", "cache", "ByIndex/objects=100000/node/ByIndexAppend", "allocs/op", "≤", 0)
	ptarget("index lookup returning a new slice (the slice itself)", "cache", "ByIndex/objects=100000/node/ByIndex", "allocs/op", "≤", 1)
	print ""
	for (p = 1; p <= npkg; p++) {
		pk = pkgs[p]
		if (ng[pk] == 0) continue
		printf "## %s\n\n", pk
		for (q = 1; q <= ng[pk]; q++) {
			g = group[pk, q]
			printf "| %s |", substr(g, length(pk) + 2)
			for (j = 1; j <= nu[g]; j++) printf " %s |", unit[g, j]
			printf "\n|---|"
			for (j = 1; j <= nu[g]; j++) printf "---:|"
			printf "\n"
			for (i = 1; i <= nb[g]; i++) {
				b = bench[g, i]
				printf "| %s |", b
				for (j = 1; j <= nu[g]; j++) printf " %s |", cell(get(pk, b, unit[g, j]), unit[g, j])
				printf "\n"
			}
			print ""
		}
	}
}
