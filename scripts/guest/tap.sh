# TAP for the guest's shell scripts: sourced, not run.  result() records
# one result, done_tap() prints the plan and the totals and exits non-zero
# if any result failed.

n=0 failed=0

result() {	# 0|1 DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		failed=$((failed + 1))
		echo "not ok $n $2"
	fi
}

done_tap() {
	echo "1..$n"
	echo "# Totals: pass:$((n - failed)) fail:$failed xfail:0 xpass:0 skip:0 error:0"
	[ "$failed" = 0 ]
	exit
}
