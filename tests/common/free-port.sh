# free-port.sh - sourced by the test and bench scripts that start servers
# which need a port given in advance (nginx, debuginfod; ehelf-server picks
# its own with --port 0 --port-file).
#
# free_port: print a TCP port in 20000..59999 that nobody listens on now
# (read from /proc/net/tcp{,6}); a caller retries if its server still
# finds it taken.
free_port() {
	while :; do
		p=$(( $(od -An -N2 -tu2 /dev/urandom) % 40000 + 20000 ))
		hexp=$(printf ':%04X' "$p")
		awk -v p="$hexp" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
			END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null || break
	done
	echo "$p"
}
