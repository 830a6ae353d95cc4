#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh TEST...: run each TAP test program of tsa-prstat in turn,
# its output shown as it comes, then the one line CI reads:
# "userspace: N passed, N failed" (every program's oks summed; a program
# that dies without a failing line counts as one failure).
p=0
f=0
# test-cli's tmux server (tmux -L tsa-prstat-test) in a directory of this
# run's own: another run on the machine (make check's userspace-san
# beside userspace, another worktree's make test) has its own, and
# neither kills or drives the other's keys.
TMUX_TMPDIR=$(mktemp -d /tmp/tsa-tmux.XXXXXX) || exit 1
export TMUX_TMPDIR
trap 'tmux -L tsa-prstat-test kill-server 2>/dev/null; rm -rf "$TMUX_TMPDIR"' EXIT
for t in "$@"; do
	log=$(mktemp)
	"$t" | tee "$log"
	rc=${PIPESTATUS[0]}
	tp=$(grep -c '^ok ' "$log")
	tf=$(grep -c '^not ok ' "$log")
	if [ "$rc" -ne 0 ] && [ "$tf" -eq 0 ]; then
		echo "not ok - $t: exited with status $rc without a failing test"
		tf=1
	fi
	rm -f "$log"
	p=$((p + tp))
	f=$((f + tf))
done
echo "userspace: $p passed, $f failed"
[ "$f" -eq 0 ]
