# TAP output for the host-side checks (lint.sh, docs.sh), sourced.  Each
# check is one test; results.py reads the output like a kselftest's.
#   tap_result OK|FAIL DESCRIPTION [DETAIL-FILE]
#   tap_done   prints the plan and the totals; returns 1 if a test failed
tap_n=0 tap_failed=0

tap_result() {
	tap_n=$((tap_n + 1))
	if [ "$1" = OK ]; then
		echo "ok $tap_n $2"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n $2"
	fi
	if [ -n "${3:-}" ] && [ -s "$3" ]; then
		sed 's/^/# /' "$3"
	fi
}

tap_done() {
	echo "1..$tap_n"
	echo "# Totals: pass:$((tap_n - tap_failed)) fail:$tap_failed xfail:0 xpass:0 skip:0 error:0"
	[ "$tap_failed" = 0 ]
}
