# wait-line.sh — sourced by bench-load.sh and bench-cluster.sh.

# wait_line FILE SED_EXPR: prints the first match of SED_EXPR in FILE,
# waiting up to 20 s for it (a cluster node's start waits for the others).
wait_line() {
	local i v
	for i in $(seq 400); do
		v=$(sed -n "$2" "$1" 2>/dev/null | head -1 || true)
		[[ -n $v ]] && { echo "$v"; return 0; }
		sleep 0.05
	done
	echo "timed out waiting in $1:" >&2
	cat "$1" >&2
	return 1
}
