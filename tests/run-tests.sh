#!/bin/sh
# Runs every test binary given as an argument, shows its output, and ends with
# one line "N passed, N failed" summed over all of them (cmocka's own counts),
# after "N skipped" when some test skipped itself.
# A binary that crashes or prints no summary counts as one failure.
set -u
passed=0
failed=0
skipped=0
failing=""
for bin in "$@"; do
	out=$(mktemp)
	# A hung binary must not hang the suite: ten minutes each at most.
	timeout 600 "./$bin" >"$out" 2>&1 </dev/null
	rc=$?
	cat "$out"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test(s)\./\1/p' "$out" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s), listed below:/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
	# A test may skip where it means nothing (test_heap under a
	# sanitizer's allocator); a binary that skipped all it has ran.
	k=$(sed -n 's/^\[  SKIPPED \] \([0-9][0-9]*\) test(s), listed below:/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "run-tests: $bin exited with status $rc without reporting a failed test" >&2
		f=1
	fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$k" -eq 0 ]; then
		echo "run-tests: $bin ran no test" >&2
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + k))
	[ "$f" -eq 0 ] || failing="$failing $bin(rc=$rc)"
	rm -f "$out"
done
# CI shows only the tail of the log: name the failing binaries there.
[ -z "$failing" ] || echo "failing binaries:$failing"
[ "$skipped" -eq 0 ] || echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
