# Sourced by bench/clientgo/run.sh and bench/fleet/run.sh: what a run
# writes, said once.

# plan_writes OUT ENV MD WHAT: with -dry-run ($dry), print the files a run
# would write (a report, with -report-only: MD alone) and exit; with
# -report-only and no OUT to report from, say so and fail. WHAT names what
# -write would rewrite from the committed results.
plan_writes() {
	local out=$1 env=$2 md=$3 what=$4
	if [ -n "$dry" ]; then
		if [ -n "$report_only" ]; then
			printf 'would write: %s\n' "$md"
		else
			printf 'would write: %s\n' "$out" "$env" "$md"
		fi
		exit 0
	fi
	if [ -n "$report_only" ] && [ ! -f "$out" ]; then
		echo "run.sh: no $out to report: run without -report-only first, or add -write to rewrite $what from the committed results" >&2
		exit 1
	fi
}
