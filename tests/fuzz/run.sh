#!/bin/bash
# make fuzz: runs each libFuzzer harness for SECONDS from the seed corpus
# and prints the executions; fails on the first crash, leak or hang.
set -u
B=${1:-build-fuzz} SECONDS_EACH=${2:-60}
cd "$(dirname "$0")/../.." || exit 1
status=0
for h in name cmsg request msg netlink authenc asym; do
	mkdir -p "$B/corpus/$h"
	"$B/tests/fuzz/fuzz-$h" -max_total_time="$SECONDS_EACH" -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$B/crash-$h-" "$B/corpus/$h" "tests/fuzz/corpus/$h" \
		> "$B/fuzz-$h.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/fuzz-$h.log")
	cov=$(grep -o 'cov: [0-9]*' "$B/fuzz-$h.log" | tail -n 1)
	if [ $rc = 0 ]; then echo "ok - fuzz-$h: ${execs:-?} executions, $cov, no crash"
	else echo "not ok - fuzz-$h (see $B/fuzz-$h.log)"; grep -E 'ERROR|SUMMARY' "$B/fuzz-$h.log"; status=1; fi
done
exit $status
