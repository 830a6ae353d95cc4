#!/bin/bash
# Guest side of the SYS referee on ordinary CPUs (run by
# run-replay-tests.sh through tests/guest-run, tsa.ko loaded, no
# nohz_full): there no hook reaches the kernel's entry and exit paths,
# and tsa-prstat --calibrate measures what they cost on each CPU.
#
#   sysref-tests.sh OUTDIR TSA_PRSTAT
#
# The referee (tests/guest/tsa-sysref.c): a loop of getppid(), of 64 KiB
# reads, or of first-touch faults, timed as a whole with the vDSO clock,
# against the same loop without the operation: the difference is the
# kernel's time. On CPU 1, tsa's SYS share of the loop's on-CPU time is
# to agree with the referee's within TSA_SYSREF_TOL (3) points once
# calibrated (reported; what is asserted under emulation is below);
# uncalibrated, the getppid() loop must miss it by more (the referee sees
# what it is there to see). Then the calibration file's checks: bad
# input refused whole, "clear", a user who is not root.
# Environment: TSA_SYSREF_SECS (2), TSA_SYSREF_TOL (3).
set -u
out=$1 prstat=$2
secs=${TSA_SYSREF_SECS:-2}
tol=${TSA_SYSREF_TOL:-3}
cal=/proc/tsa/calibration
n=0 failed=0

say() { echo "# [${SECONDS}s] $*"; }
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $*"; }
check() {	# check COND DESCRIPTION
	if eval "$1"; then ok "$2"; else not_ok "$2"; fi
}

# ref MODE: sets ref (the referee's kernel share of the loop's on-CPU
# time, %), sys (tsa's SYS share), calp (calibration's part of SYS, %),
# gap (|ref - sys|, points), rgap (the same for SYS less calibration's
# part) and line (what tsa-sysref printed).
ref() {
	line=$(taskset -c 1 "$out/tsa-sysref" "$1" "$secs")
	read -r ref sys calp gap rgap <<<"$(awk '{
		for (i = 2; i < NF; i += 2) v[$i] = $(i + 1)
		print v["ref_pct"], v["sys_pct"], v["cal_pct"], v["gap"], v["raw_gap"] }' <<<"$line")"
	say "$line"
}

# perf MODE: sets kperf, perf's kernel-mode share of the samples of the
# same loop run alone (cpu-clock, 1 kHz), and kperf_top, that share with
# the samples at its busiest user place counted as the kernel's: one due
# while IRQs are off (the exit path, up to sysret or iret) is taken at
# the first user instruction after it, so perf's share is a lower bound.
# Reported beside the referee; under TCG, which takes interrupts only
# between translated blocks, more so.
perf_share() {
	kperf="?" kperf_top="?"
	command -v perf >/dev/null || return 0
	perf record -q -e cpu-clock -F 1000 -o "$out/perf.$1.data" -- \
		taskset -c 1 "$out/tsa-sysref" "$1" "$secs" only >/dev/null 2>&1 || return 0
	read -r kperf kperf_top <<<"$(perf script -i "$out/perf.$1.data" --comm tsa-sysref \
		-F ip,sym,symoff 2>/dev/null |
		awk '{n++} $1 ~ /^ffff/ {k++} $1 !~ /^ffff/ {u[$2]++}
		END {for (s in u) if (u[s] > m) m = u[s]
		if (n) printf "%.1f %.1f\n", 100 * k / n, 100 * (k + m) / n}')"
	rm -f "$out/perf.$1.data"
}

say "before calibration: $(tr '\n' ' ' <"$cal")"
check '[ "$(awk '\''/^[0-9]/ && ($2 || $3)'\'' "$cal")" = "" ]' \
	"at load nothing is calibrated: every CPU's costs are 0"
state() { awk '$1 == "state" { print $2 }' "$cal"; }
mine() { awk '$1 == "calibration" { print $2 }' "/proc/tsa/$$"; }
check '[ "$(state)" = none ] && [ "$(mine)" = none ]' \
	"at load $cal says 'state none' and a thread's own file 'calibration none' (saw '$(state)', '$(mine)')"
ref getppid
check "awk -v g=$gap -v t=$tol 'BEGIN { exit !(g > t) }'" \
	"uncalibrated, a getppid() loop's SYS misses the referee by more than $tol points (referee $ref %, tsa $sys %): the unseen entry and exit paths are USR"
before_getppid="$ref/$sys $gap"
ref read64k
before_read64k="$ref/$sys $gap"
ref fault
before_fault="$ref/$sys $gap"

"$prstat" --calibrate >"$out/calibrate.txt" 2>&1
st=$?
sed 's/^/# /' "$out/calibrate.txt"
check "[ $st -eq 0 ]" "tsa-prstat --calibrate measures every CPU and writes $cal (exit $st)"
check "awk '/^[0-9]/ && \$1 == 1 && \$2 > 0 { f = 1 } END { exit !f }' $cal" \
	"$cal holds CPU 1's system call cost ($(awk '/^[0-9]/ && $1 == 1' "$cal"))"
check '[ "$(state)" = applied ] && [ "$(mine)" = applied ]' \
	"calibrated, $cal says 'state applied' and a thread's own file 'calibration applied' (saw '$(state)', '$(mine)')"

# The calibrated loops. Within $tol points of the referee is the aim
# (issue 26), and is reported. Under emulation it cannot be asserted: QEMU
# does not run the vCPU for tens of microseconds about 1600 times a second
# here, and a stall in the unseen paths past their calibrated cost stays
# USR (as an interrupt there would) while the referee counts it as the
# kernel's; host load moves the emulated paths' cost by tens of percent
# between the calibration and the loop; on 7.x a 64 KiB read of /dev/zero
# is fast enough for its unseen paths to weigh 5 points. So the test asks
# that every loop's SYS moved toward the referee and never past it by
# more than $tol points, and that the getppid() loop's SYS is above its
# USR and at most half as far from the referee as before. For the 64 KiB
# reads and the faults, whose unseen paths weigh far less, "toward" is
# judged within the calibrated run: its SYS against the same run's SYS
# less what calibration gave (tsa counts that part exactly). Between two
# runs the loop's emulated cost moves by more than the calibration adds:
# a CI run of 2026-11-28 saw the fault loop's uncalibrated share at 87.4 %
# in one run and 78.0 % in the next, beside a busy guest.
#
# The calibration and the loop are seconds apart, and the emulated cost
# of the unseen paths moves between them: the fault loop's weigh 10-12
# points, and a swing by a third moves its SYS past the referee by 4 (a
# CI run of 2026-11-30: the calibrated cost 1.69 us a fault, what the
# loop showed unseen 0.98 us); with a third guest on the host, a
# getppid loop ran three times slower calibrated than before (2026-12-01:
# 567,872 calls against 1,630,795, its gap 30.8 points against 57.6). So
# both checks of a loop are a repeated measurement: each holds at once,
# or, calibrated anew each time, in both of two more tries (every try is
# printed). A calibration that is wrong for good fails all three; one
# that misses once in ten fails about 2 % of runs.
# judge: the calibrated checks of loop $m on the last ref(): "not
# above" (sets a), and "toward" (sets b).
judge() {
	a=0 b=0
	awk -v r="$ref" -v s="$sys" -v t="$tol" 'BEGIN { exit !(s <= r + t) }' && a=1
	if [ "$m" = getppid ]; then
		awk -v g="$gap" -v b="$bgap" -v s="$sys" 'BEGIN { exit !(g <= b / 2 && s > 50) }' && b=1
	else
		awk -v g="$gap" -v b="$rgap" -v t="$tol" 'BEGIN { exit !(g < b || g <= t / 3) }' && b=1
	fi
	return 0
}
for m in getppid read64k fault; do
	ref "$m"
	eval "before=\$before_$m"
	bgap=${before##* }
	judge
	a_ok=$a b_ok=$b
	raw=$(awk -v s="$sys" -v c="$calp" 'BEGIN { printf "%.1f", s - c }')
	tries="$sys/$ref (gap $gap, without calibration $rgap)"
	if [ "$a" = 0 ] || [ "$b" = 0 ]; then
		a2=1 b2=1
		for try in 2 3; do
			"$prstat" --calibrate >"$out/calibrate.$try.txt" 2>&1 ||
				say "try $try: tsa-prstat --calibrate failed: $(tail -n 1 "$out/calibrate.$try.txt")"
			say "try $try: $(awk '/^[0-9]/ && $1 == 1' "$cal")"
			ref "$m"
			judge
			a2=$((a2 & a)) b2=$((b2 & b))
			tries="$tries; $sys/$ref (gap $gap, without calibration $rgap)"
		done
		a_ok=$((a_ok | a2)) b_ok=$((b_ok | b2))
	fi
	check '[ "$a_ok" = 1 ]' \
		"calibrated, a $m loop's SYS is not above the referee's kernel share by more than $tol points, at once or in both of two more tries calibrated anew (tsa/referee % each try: $tries; the last calibrated $calp points)"
	if [ "$m" = getppid ]; then
		check '[ "$b_ok" = 1 ]' \
			"calibrated, a getppid loop's SYS is above its USR and at most half as far from the referee as before (before: gap $bgap), at once or in both of two more tries (each try: $tries)"
	else
		check '[ "$b_ok" = 1 ]' \
			"calibrated, a $m loop's SYS is nearer the referee than the same run's SYS less what calibration gave, or within a third of $tol points of it, at once or in both of two more tries (each try: $tries; the first without calibration $raw %; an earlier uncalibrated run's gap $bgap)"
	fi
	within=no
	awk -v g="$gap" -v t="$tol" 'BEGIN { exit !(g <= t) }' && within=yes
	perf_share "$m"
	say "$m: referee/tsa before ${before% *} %, after $ref/$sys %: within $tol points: $within; perf kernel-mode samples ${kperf:-?} % (${kperf_top:-?} % with its busiest user place)"
done

# The file itself: a write is checked whole before any of it applies.
cp "$cal" "$out/cal.saved"
# Not cmp: a /proc file's size is 0, and cmp compares sizes first.
same() { [ "$(cat "$cal")" = "$(cat "$out/cal.saved")" ]; }
for bad in "garbage" "1 70000 5" "1 5" "1 5 5 5" "-1 5 5" "4096 5 5" "0 5 5
nonsense" ""; do
	# One write(2), as the file wants (the shell may write line by line).
	printf '%s\n' "$bad" >"$out/cal.bad"
	dd if="$out/cal.bad" of="$cal" bs=64k 2>/dev/null
	st=$?
	check "[ $st -ne 0 ] && same" \
		"a write of '$(printf '%s' "$bad" | tr '\n' '|')' is refused and changes nothing (exit $st)"
done
echo clear >"$cal"
check '[ "$(awk '\''/^[0-9]/ && ($2 || $3 || $4)'\'' "$cal")" = "" ] && [ "$(state)" = none ]' \
	"'clear' sets every CPU's costs back to 0, not calibrated (state '$(state)')"
if [ "$(nproc)" -gt 1 ]; then
	echo "1 0 0" >"$cal"
	check '[ "$(state)" = partial ] && [ "$(awk '\''$1 == 1 { print $4 }'\'' "$cal")" = 1 ]' \
		"CPU 1 written alone (a cost of 0 is a calibration too): 'state partial' (saw '$(state)')"
fi
awk '/^[0-9]/ { print $1, $2, $3 }' "$out/cal.saved" >"$cal"
check "same" "the saved calibration written back reads the same"
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "echo '1 1 1' >$cal" 2>/dev/null
	st=$?
	check "[ $st -ne 0 ] && same" "a user who is not root cannot write it (exit $st)"
	setpriv --reuid=65534 --regid=65534 --clear-groups cat "$cal" >/dev/null
	check "[ $? -eq 0 ]" "any user can read it"
fi
echo "sysref: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
