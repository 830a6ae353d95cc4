#!/bin/bash
# Guest side of the issue-5 tests, "tsa-prstat and the interfaces it
# reads" (run by run-prstat-tests.sh through tests/guest-run --no-unload,
# with tsa.ko loaded; this script unloads it itself for the last tests).
#
#   prstat-tests.sh TSA_PRSTAT TSA_PTEST [SECTION...]
#
# SECTIONs (default all): workloads exits access errors signals calls groups record unload
# 1. workloads vs tsa-prstat -mL/-A (-c, -p, --json)   (tsa-ptest prstat)
# 2. process totals while threads exit                 (tsa-ptest exits, storm)
# 3. access: nobody vs root, non-dumpable              (here)
# 4. error paths: names with a newline, stale fd, writes, -p 999999, exit 3, module gone
# 5. SIGINT / SIGTERM end tsa-prstat with exit 0
# 6. tsa-prstat -y on the real /proc/tsa/calls: a sleep and a pipe reader
# 7. --group cgroup (a spinner held by cpu.max, sleepers, exited threads),
#    --save/--compare, --prometheus checked by promtool
# 8. --record at 1 s while a thread spins, sleeps and waits for a lock,
#    4 s each; --replay of each phase's window; a recorder killed
#    mid-write, its torn tail
# 9. with "with-exporter" first: tsa-exporter scraped by a real
#    Prometheus (exporter-tests.sh)
# TAP on stdout (plan last), then "prstat: N passed, N failed"; exit
# status non-zero if any test failed.
set -u
prstat=$1 ptest=$2
shift 2
# "with-exporter": also tsa-exporter against a real Prometheus
# (exporter-tests.sh); user space that is the same on every kernel, so
# the 6.1 prstat suite alone runs it.
with_exporter=
if [ "${1:-}" = with-exporter ]; then
	with_exporter=1
	shift
fi
only=" $* "
want() { [ "$only" = "  " ] || [[ $only == *" $1 "* ]]; }
n=0 failed=0
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
tmp=$(mktemp -d /tmp/prstat-tests.XXXXXX)
chmod 755 "$tmp"
pids=()

say() { echo "# [${SECONDS}s] $*"; }
# t COND-STATUS DESCRIPTION: one TAP line from the status of the last test.
t() {
	local st=$1
	shift
	n=$((n + 1))
	if [ "$st" -eq 0 ]; then
		echo "ok $n - $*"
	else
		failed=$((failed + 1))
		echo "not ok $n - $*"
	fi
}
run() {	# run tsa-ptest, continuing the numbering
	local out rc
	out=$(mktemp)
	"$ptest" --first $((n + 1)) "$@" | tee "$out"
	rc=${PIPESTATUS[0]}
	n=$((n + $(grep -cE '^(not )?ok [0-9]+' "$out")))
	failed=$((failed + $(grep -cE '^not ok [0-9]+' "$out")))
	if [ "$rc" -ne 0 ] && ! grep -qE '^not ok' "$out"; then
		t 1 "tsa-ptest $* exited with $rc"
	fi
	rm -f "$out"
}
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# Start "tsa-ptest hold" (as whoever the prefix says) in the background;
# sets hold_pid hold_tid2 hold_self from its one line.
hold() {
	local out=$tmp/hold.$RANDOM line="" k
	: >"$out"
	# shellcheck disable=SC2086 # HOLD_ARG: no word or one
	"$@" "$ptest" hold ${HOLD_ARG:-} >"$out" &
	pids+=($!)
	for ((k = 0; k < 300; k++)); do
		read -r line <"$out"
		[ -z "$line" ] || break
		sleep 0.02
	done
	read -r hold_pid hold_tid2 hold_self <<<"$line"
	[ "${hold_pid:-}" = "$!" ]
}

[ -r /proc/tsa/all ] || { echo "Bail out! /proc/tsa/all missing: tsa.ko not loaded"; exit 1; }
# Copies nobody can run whatever the host tree's permissions.
cp "$prstat" "$tmp/tsa-prstat" && cp "$ptest" "$tmp/tsa-ptest" &&
	chmod 755 "$tmp/tsa-prstat" "$tmp/tsa-ptest"
prstat=$tmp/tsa-prstat ptest=$tmp/tsa-ptest

# --- 1 and 2 ---
if want workloads; then
	say "1. known workloads: tsa-prstat against /proc/tsa/<tid>"
	run prstat "$prstat"
fi
if want exits; then
	say "2. process totals while threads exit"
	run exits "$prstat"
	run storm
fi

# --- 3. access ---
if want access; then
say "3. access: root and nobody"
# Few processes here: every exec is slow under TCG (binaries come over
# 9p), so the parsing below uses shell builtins only.
hold env; t $? "access: root holder process started ($hold_pid/$hold_tid2, reads itself: $hold_self)"
r_pid=$hold_pid r_tid2=$hold_tid2
hold "${NOBODY[@]}"; st=$?
[ $st -eq 0 ] && [ "$hold_self" = OK ]
t $? "access: a process of nobody reads its own two threads' files (saw ${hold_self:-nothing})"
n_pid=$hold_pid n_tid2=$hold_tid2
HOLD_ARG=nodump hold "${NOBODY[@]}"; st=$?
[ $st -eq 0 ] && [ "$hold_self" = OK ]
t $? "access: a non-dumpable process of nobody (PR_SET_DUMPABLE 0) reads its own threads' files (saw ${hold_self:-nothing})"
d_pid=$hold_pid d_tid2=$hold_tid2

seen=$("${NOBODY[@]}" "$ptest" open "$r_pid" "$r_tid2" "$n_tid2" "$d_pid" "$d_tid2")
read -r s1 s2 s3 s4 s5 <<<"$seen"
[ "$s1 $s2" = "EACCES EACCES" ]
t $? "access: nobody opening root's /proc/tsa/$r_pid and /proc/tsa/$r_tid2 gets EACCES (saw $s1, $s2)"
[ "$s3" = OK ]
t $? "access: another nobody process reads nobody's dumpable thread /proc/tsa/$n_tid2 (saw $s3)"
[ "$s4 $s5" = "EACCES EACCES" ]
t $? "access: another nobody process opening the non-dumpable process's /proc/tsa/$d_pid, /proc/tsa/$d_tid2 gets EACCES (saw $s4, $s5)"
seen=$("$ptest" open "$r_pid" "$r_tid2" "$n_pid" "$d_pid" "$d_tid2" 1)
[ "$seen" = "OK OK OK OK OK OK" ]
t $? "access: root reads every thread (root's, nobody's, non-dumpable, init: $seen)"

# "tid pid uid flags" lines: count those of pid $2 (or of uid != 65534 with
# "other", or all with "all") in file $1.
count() {
	local f=$1 what=$2 tid pid uid c=0
	while read -r tid pid uid _; do
		[ "$tid" != self ] || continue
		case $what in
		all) c=$((c + 1)) ;;
		other) [ "$uid" = 65534 ] || c=$((c + 1)) ;;
		nobody) [ "$uid" != 65534 ] || c=$((c + 1)) ;;
		*) [ "$pid" != "$what" ] || c=$((c + 1)) ;;
		esac
	done <"$f"
	echo $c
}
"${NOBODY[@]}" "$ptest" all >"$tmp/all.nobody"
read -r _ self <"$tmp/all.nobody"
others=$(count "$tmp/all.nobody" other) mine=$(count "$tmp/all.nobody" "$self")
c_r=$(count "$tmp/all.nobody" "$r_pid") c_1=$(count "$tmp/all.nobody" 1)
c_n=$(count "$tmp/all.nobody" "$n_pid") c_d=$(count "$tmp/all.nobody" "$d_pid")
[ "$others" -eq 0 ] && [ "$mine" -eq 1 ] && [ "$c_r" -eq 0 ] && [ "$c_1" -eq 0 ] &&
	[ "$c_n" -eq 2 ] && [ "$c_d" -eq 0 ]
t $? "access: /proc/tsa/all read by nobody lists its own thread ($mine), nobody's dumpable process ($c_n lines), and no line of another uid ($others), of root's holder ($c_r), of init ($c_1) or of the non-dumpable process ($c_d)"
"$ptest" all >"$tmp/all.root"
c_r=$(count "$tmp/all.root" "$r_pid") c_1=$(count "$tmp/all.root" 1)
c_n=$(count "$tmp/all.root" "$n_pid") c_d=$(count "$tmp/all.root" "$d_pid")
c_nob=$(count "$tmp/all.root" nobody)
n_root=$(count "$tmp/all.root" all) n_nob=$(count "$tmp/all.nobody" all)
[ "$c_r" -eq 2 ] && [ "$c_n" -eq 2 ] && [ "$c_d" -eq 2 ] && [ "$c_1" -ge 1 ] &&
	[ "$c_nob" -ge 4 ] && [ "$n_root" -gt "$n_nob" ]
t $? "access: /proc/tsa/all read by root lists root's ($c_r), nobody's ($c_n), the non-dumpable process ($c_d), init ($c_1); $n_root lines vs nobody's $n_nob"

# Permission is checked at every read, not only at open: a descriptor
# nobody opened on its own process reads EACCES once that process has
# exec'd a setuid-root program (same task, same tsa record).
cp "$ptest" "$tmp/tsa-ptest-suid" && chown 0:0 "$tmp/tsa-ptest-suid" &&
	chmod 4755 "$tmp/tsa-ptest-suid" && mkfifo -m 666 "$tmp/go"
"${NOBODY[@]}" "$tmp/tsa-ptest" execwait "$tmp/go" "$tmp/tsa-ptest-suid" >"$tmp/ew" &
pids+=($!)
ew=$!
for ((k = 0; k < 300; k++)); do	# its pid line: it runs tsa-ptest as nobody
	[ -s "$tmp/ew" ] && break
	sleep 0.02
done
res=$("${NOBODY[@]}" "$tmp/tsa-ptest" reread "$ew" "$tmp/go")
[ "$res" = "before=OK after=EACCES euid=0" ]
t $? "access: nobody's open /proc/tsa/<pid> reads EACCES after that process exec'd a setuid-root program (saw $res)"
kill "$ew" 2>/dev/null

# Reader memory: what an open /proc/tsa/all holds is sized to the threads
# the reader may see and charged to its memory cgroup, so a user holding
# many descriptors is bounded by its descriptor limit and its memcg.
memavail() { awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo; }
rcg=/sys/fs/cgroup/tsa-reader
# fdhog_in LIMIT N: nobody's "tsa-ptest fdhog N" in $rcg at memory.max
# LIMIT; sets hog_line (its report, or nothing if it died), hog_held (the
# descriptors it held at most), hog_charge (memory.current growth, bytes),
# hog_drop (MemAvailable drop), hog_oom (the cgroup's OOM kills).
fdhog_in() {
	local c0 a0 line=""
	echo "$1" >"$rcg/memory.max"
	c0=$(cat "$rcg/memory.current") a0=$(memavail)
	coproc HOG { echo "$BASHPID" >"$rcg/cgroup.procs" && ulimit -n 5000 &&
		exec "${NOBODY[@]}" "$tmp/tsa-ptest" fdhog "$2"; }
	hog_line="" hog_held=0
	while read -r -t 120 line <&"${HOG[0]}"; do
		case $line in
		progress\ *) hog_held=${line#progress } ;;
		opened\ *) hog_line=$line; hog_held=$(cut -d' ' -f2 <<<"$line"); break ;;
		esac
	done
	hog_charge=$(($(cat "$rcg/memory.current") - c0)) hog_drop=$((a0 - $(memavail)))
	hog_oom=$(awk '/^oom_kill / { print $2 }' "$rcg/memory.events")
	[ -z "${HOG[1]:-}" ] || echo >&"${HOG[1]}" 2>/dev/null
	wait "${HOG_PID:-}" 2>/dev/null
}
row=$(awk '/^reader_row_bytes / { print $2 }' /sys/kernel/debug/tsa/stats 2>/dev/null)
if grep -qw memory /sys/fs/cgroup/cgroup.controllers &&
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control && mkdir -p "$rcg"; then
	vis=$("${NOBODY[@]}" "$tmp/tsa-ptest" all | wc -l)	# nobody's lines + 1
	fdhog_in 512M 0
	base_charge=$hog_charge base_drop=$hog_drop
	fdhog_in 512M 1000
	per_charge=$(((hog_charge - base_charge) / 1000)) per_drop=$(((hog_drop - base_drop) / 1000))
	# Bound (docs/proc-format.md): rows for what the reader sees (~$vis
	# lines, 1/8 and 16 more), one page of text, the open file itself;
	# kmalloc rounds a snapshot up to a power of two.
	bound=$(((vis + vis / 8 + 16) * ${row:-0} + 64)) b2=4096
	while [ $b2 -lt $bound ]; do b2=$((b2 * 2)); done
	bound=$((b2 + 4096 + 2048))
	[ "$hog_line" = "opened 1000 OK" ] && [ -n "$row" ] && [ "$per_drop" -le "$bound" ] &&
		[ $((per_charge * 10)) -ge $((per_drop * 9)) ]
	t $? "memory: nobody holding 1000 opens of /proc/tsa/all ($hog_line): $per_drop bytes each (bound $bound for ~$vis visible lines x $row-byte rows), $per_charge of them charged to its memory cgroup (>= 90 % expected)"
	oom0=$hog_oom
	fdhog_in 6M 2000
	# What it held when stopped (at the bytes per open just measured)
	# must fit the limit, with 10 % for the process itself.
	held=$((hog_held * per_drop))
	[[ $hog_line == "opened "*" ENOMEM" || ( -z $hog_line && $hog_oom -gt $oom0 ) ]] &&
		[ "$held" -le $((6 * 1024 * 1024 * 11 / 10)) ]
	t $? "memory: at memory.max 6M nobody's 2000 opens are stopped (${hog_line:-killed: oom_kill $oom0 -> $hog_oom}) after holding $hog_held descriptors, ~$held bytes (<= 6.6 MB expected)"
	rmdir "$rcg" 2>/dev/null
else
	n=$((n + 1)); echo "ok $n - # SKIP memory: no cgroup v2 memory controller"
fi

# tsa-prstat --json lines -> "pid uid nlwp" (regex builtins, no jq).
jsonpids() {
	local l
	while read -r l; do
		[[ $l =~ \"pid\":([0-9]+).*\"nlwp\":([0-9]+).*\"uid\":([0-9]+) ]] &&
			echo "${BASH_REMATCH[1]} ${BASH_REMATCH[3]} ${BASH_REMATCH[2]}"
	done <"$1"
}
# tsa-prstat as nobody: only nobody's processes, its own included.
"${NOBODY[@]}" "$prstat" -m --json 0.2 1 >"$tmp/pr.nobody" 2>"$tmp/pr.err" &
p=$!
wait $p
st=$?
jsonpids "$tmp/pr.nobody" >"$tmp/pr.nobody.ids"	# no /dev/fd in the guest
notnobody=0 selfline=0 npid=none rootl=0 nlines=0
while read -r pid uid nlwp; do
	nlines=$((nlines + 1))
	[ "$uid" = 65534 ] || notnobody=$((notnobody + 1))
	[ "$pid" != "$p" ] || selfline=$((selfline + 1))
	[ "$pid" != "$n_pid" ] || npid=$nlwp
	case $pid in "$r_pid"|"$d_pid"|1) rootl=$((rootl + 1)) ;; esac
done < "$tmp/pr.nobody.ids"
[ $st -eq 0 ] && [ "$notnobody" -eq 0 ] && [ "$selfline" -eq 1 ] && [ "$npid" = 2 ] && [ "$rootl" -eq 0 ]
t $? "access: tsa-prstat -m --json as nobody (exit $st, $nlines lines) shows itself ($selfline), nobody's holder (nlwp $npid), no other uid ($notnobody), not root's holder, init or the non-dumpable process ($rootl)"
"${NOBODY[@]}" "$prstat" -mL -c 0.2 1 >"$tmp/tab.nobody" 2>&1
st=$?
users=" " total="" lwps=0
{
	read -r _
	while read -r a b rest; do
		if [ "$a" = Total: ]; then total="$a $b $rest"; continue; fi
		lwps=$((lwps + 1))
		[[ $users == *" $b "* ]] || users+="$b "
	done
} <"$tmp/tab.nobody"
[ $st -eq 0 ] && [ "$users" = " nobody " ] && [[ $total == "Total: "*" processes, $lwps lwps, "* ]]
t $? "access: tsa-prstat -mL as nobody lists only nobody's threads (users:$users; $total)"
"${NOBODY[@]}" "$prstat" -mL -p "$r_pid" 0.2 1 >/dev/null 2>"$tmp/err"
st=$?
read -r err <"$tmp/err"
[ $st -eq 4 ]
t $? "access: tsa-prstat -p <root's pid> as nobody exits 4 (saw $st: $err)"
"$prstat" -m --json 0.2 1 >"$tmp/pr.root"
jsonpids "$tmp/pr.root" >"$tmp/pr.root.ids"
got=0
while read -r pid _; do
	case $pid in "$r_pid"|"$n_pid"|"$d_pid"|1) got=$((got + 1)) ;; esac
done <"$tmp/pr.root.ids"
[ "$got" -eq 4 ]
t $? "access: tsa-prstat as root shows root's, nobody's, the non-dumpable process and init (saw $got of 4)"
fi

# --- 4. error paths ---
if want errors; then
say "4. error paths"
run names "$tmp/tsa-prstat"
run stalefd
run badwrite
"${NOBODY[@]}" "$ptest" --first $((n + 1)) badwrite >"$tmp/bw" 2>&1
st=$?
grep -E '^(not )?ok' "$tmp/bw" | sed 's/^/# as nobody: /'
[ $st -eq 0 ]
t $? "badwrite: as nobody too, writes are refused and change nothing"
"$prstat" -mL -p 999999 1 1 >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 4 ] && [ "$(cat "$tmp/err")" = "tsa-prstat: no such process: 999999" ] && [ ! -s "$tmp/out" ]
t $? "errors: tsa-prstat -mL -p 999999 exits 4 with one line (saw $st: $(head -c 200 "$tmp/err"))"
"$prstat" -s bogus 1 1 >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ]
t $? "errors: tsa-prstat -s bogus exits 1 (saw $st)"
if chmod 0400 /proc/tsa/all 2>/dev/null; then
	"${NOBODY[@]}" "$prstat" -mL 1 1 >"$tmp/out" 2>"$tmp/err"
	st=$?
	chmod 0444 /proc/tsa/all
	[ $st -eq 3 ] && [ "$(cat "$tmp/err")" = "tsa-prstat: /proc/tsa/all: permission denied" ]
	t $? "errors: /proc/tsa/all made 0400: tsa-prstat as nobody exits 3 with one line (saw $st: $(head -c 200 "$tmp/err"))"
else
	n=$((n + 1)); echo "ok $n - # SKIP chmod of /proc/tsa/all not possible"
fi

fi

# --- 5. signals ---
if want signals; then
say "5. SIGINT and SIGTERM"
for sig in INT TERM; do
	"$prstat" -mL 1 >"$tmp/sig.out" 2>"$tmp/sig.err" &
	p=$!
	sleep 2.5
	kill -s $sig $p
	t0=$(date +%s%N)
	wait $p
	st=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	last=$(tail -n1 "$tmp/sig.out")
	reports=$(grep -c '^Total:' "$tmp/sig.out")
	[ $st -eq 0 ] && [[ $last == Total:* ]] && [ "$reports" -ge 2 ] && [ ! -s "$tmp/sig.err" ] && [ $ms -lt 3000 ]
	t $? "signals: tsa-prstat -mL 1 ended by SIG$sig exits 0 within ${ms} ms, output ends with a complete report ($reports reports; exit $st; stderr: $(head -c 100 "$tmp/sig.err"))"
done

fi

# --- 6. system calls ---
if want calls; then
say "6. tsa-prstat -y: the calls the time went to"
if [ -r /proc/tsa/calls ]; then
	sleep 60 &
	sl=$!
	pids+=("$sl")
	sleep 60 | cat >/dev/null &
	rd=$!
	pids+=("$rd")
	sleep 1
	# The second report: a second in which both were in one call all
	# through, which began before it (0 calls, AVG -).
	"$prstat" -yL -c -p "$sl,$rd" 1 2 >"$tmp/y.out" 2>"$tmp/y.err"
	st=$?
	y2=$(awk '/^ +PID SYSCALL/ { r++ } r == 2 && $1 ~ /^[0-9]+$/' "$tmp/y.out")
	# (no /dev/fd in the guest: no process substitution)
	read -r _ c_s p_s n_s a_s _ _ _ _ _ _ _ _ _ slp_s _ <<<"$(grep " clock_nanosleep .* sleep/$sl\$" <<<"$y2")"
	read -r _ c_r p_r n_r a_r _ _ _ _ _ _ _ _ idl_r _ <<<"$(grep " read .* cat/$rd\$" <<<"$y2")"
	[ $st -eq 0 ] && [ ! -s "$tmp/y.err" ] && [ "${c_s:-}" = clock_nanosleep ] &&
		[ "${p_s:-}" = 100 ] && [ "$n_s" = 0 ] && [ "$a_s" = - ] &&
		[ "$slp_s" = 100 ] && [ "${c_r:-}" = read ] && [ "${p_r:-}" = 100 ] &&
		[ "$n_r" = 0 ] && [ "$a_r" = - ] && [ "$idl_r" = 100 ]
	t $? "calls: tsa-prstat -yL over a second: sleep's clock_nanosleep (PCT ${p_s:-?}, ${n_s:-?} calls, SLP ${slp_s:-?}) and cat's read of a pipe (PCT ${p_r:-?}, IDL ${idl_r:-?}); exit $st $(head -c 200 "$tmp/y.err")"
	[ $st -eq 0 ] || sed 's/^/# /' "$tmp/y.out"
	"$prstat" -y --json -p "$sl" 0.5 2 >"$tmp/yj.out" 2>"$tmp/y.err"
	st=$?
	last=$(tail -n1 "$tmp/yj.out")
	[ $st -eq 0 ] && [[ $last == *'"pid":'"$sl"',"nlwp":1,'*'"call":"clock_nanosleep","other":false,"calls":0,'* ]] &&
		[[ $last == *'"pct":100.000,"avg_ns":null,'* ]] &&
		[[ $last =~ \"SLP\":\{\"ns\":[0-9]+,\"pct\":100\.000\} ]]
	t $? "calls: tsa-prstat -y --json: the same call of the process, 100 % of the interval, all SLP (exit $st: $(head -c 300 <<<"$last"))"
	# Every thread of the guest, three reads: the reader takes the
	# module's file as it is (ia32:, #NR, other, evictions, exits).
	"$prstat" -yL -c 0.3 3 >"$tmp/ya.out" 2>"$tmp/y.err"
	st=$?
	lines=$(grep -c '^ *[0-9]' "$tmp/ya.out")
	[ $st -eq 0 ] && [ ! -s "$tmp/y.err" ] && [ "$(grep -c '^Total:' "$tmp/ya.out")" -eq 3 ] && [ "$lines" -gt 0 ]
	t $? "calls: tsa-prstat -yL over every thread, three reports: exit $st, $lines call lines $(head -c 200 "$tmp/y.err")"
	kill "$sl" "$rd" 2>/dev/null
else
	n=$((n + 1)); echo "ok $n - # SKIP calls: no /proc/tsa/calls (calls=0 or syscalls=0)"
fi
fi

# --- 7. groups, captures, the metrics export ---
if want groups; then
say "7. --group cgroup, --save/--compare, --prometheus on the real module"
cgr=/sys/fs/cgroup
spin_cg=$cgr/tsa-spin sleep_cg=$cgr/tsa-sleep
mkdir -p "$spin_cg" "$sleep_cg" 2>/dev/null
if echo +cpu >"$cgr/cgroup.subtree_control" 2>/dev/null &&
	echo "20000 100000" >"$spin_cg/cpu.max"; then
	# A spinner held to 20 % of a CPU; a sleeper; a process whose two
	# threads spin 2 s each and exit, then it sleeps (its exited
	# threads must keep counting in its cgroup).
	bash -c "echo \$\$ >$spin_cg/cgroup.procs; while :; do :; done" &
	spin=$!
	pids+=("$spin")
	bash -c "echo \$\$ >$sleep_cg/cgroup.procs; exec sleep 600" &
	slp=$!
	pids+=("$slp")
	bash -c "echo \$\$ >$sleep_cg/cgroup.procs; exec python3 -c '
import threading, time
def spin():
    t = time.monotonic()
    while time.monotonic() - t < 2: pass
th = [threading.Thread(target=spin) for _ in range(2)]
[x.start() for x in th]
[x.join() for x in th]
print(\"done\", flush=True)
time.sleep(600)'" >"$tmp/py.out" &
	py=$!
	pids+=("$py")
	for ((k = 0; k < 600; k++)); do
		[ -s "$tmp/py.out" ] && break
		sleep 0.1
	done
	[ "$(cat "$tmp/py.out")" = "done" ]
	t $? "groups: a spinner in /tsa-spin (cpu.max 20 %), a sleeper and a python whose 2 threads spun 2 s each and exited, in /tsa-sleep"

	# Reports by cgroup: the second covers 2 s.
	"$prstat" --group cgroup -c 2 2 >"$tmp/g.out" 2>"$tmp/g.err"
	st=$?
	g2=$(awk '/^ NPROC/ { r++ } r == 2' "$tmp/g.out")
	read -r np_s nl_s usr_s _ _ _ _ _ _ lat_s _ <<<"$(grep ' /tsa-spin$' <<<"$g2")"
	read -r np_z nl_z _ _ _ _ _ _ slp_z _ <<<"$(grep ' /tsa-sleep$' <<<"$g2")"
	num() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v + 0 >= lo && v + 0 <= hi) }'; }
	[ $st -eq 0 ] && [ "${np_s:-}" = 1 ] && [ "$nl_s" = 1 ] &&
		num "$usr_s" 10 35 && num "$lat_s" 60 90
	t $? "groups: --group cgroup, /tsa-spin over 2 s: 1 process, 1 thread, USR ${usr_s:-?} % (10-35), LAT ${lat_s:-?} % (60-90: held by cpu.max) (exit $st)"
	[ $st -eq 0 ] && [ "${np_z:-}" = 2 ] && [ "$nl_z" = 2 ] && num "$slp_z" 95 100
	t $? "groups: /tsa-sleep: 2 processes, 2 live threads, SLP ${slp_z:-?} % (95-100)"
	[ $st -eq 0 ] || sed 's/^/# /' "$tmp/g.out" "$tmp/g.err"

	# The export: promtool accepts it; /tsa-sleep's elapsed time holds
	# the exited threads' 2 s each beyond its live threads' lives.  One
	# snapshot for both (the live threads age while promtool starts).
	mkdir -p "$tmp/snap" && cat /proc/tsa/all >"$tmp/snap/all"
	TSA_PROC_DIR=$tmp/snap "$prstat" --prometheus --group cgroup >"$tmp/m.prom" 2>"$tmp/m.err"
	st=$?
	promtool check metrics <"$tmp/m.prom" >"$tmp/pt.out" 2>&1
	pst=$?
	t $((st | pst)) "groups: promtool check metrics accepts the real --prometheus --group cgroup (exit $st, promtool $pst: $(head -c 300 "$tmp/pt.out"))"
	grp=$(awk '/^tsa_cgroup_elapsed_seconds_total\{cgroup="\/tsa-sleep"\}/ { print $2 }' "$tmp/m.prom")
	live=$(awk -v a="$slp" -v b="$py" '
		/^fields / { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
		c["pid"] && ($(c["pid"]) == a || $(c["pid"]) == b) && $(c["tid"]) != 0 {
			s += $(c["elapsed"]) }
		END { printf "%.9f", s / 1e9 }' "$tmp/snap/all")
	num "$(awk -v g="${grp:-0}" -v l="$live" 'BEGIN { print g - l }')" 4 30
	t $? "groups: /tsa-sleep's elapsed seconds in the export (${grp:-?} s) hold its 2 exited threads' 2 s each beyond its live threads' ($live s, the same snapshot)"

	# A capture, a second, another: the compare shows the second.  A
	# ticker sleeps 50 ms at a time meanwhile: its timer ends them.
	(exec "$ptest" tick 50) &
	tick=$!
	pids+=("$tick")
	sleep 0.5
	"$prstat" --save "$tmp/a.cap" && sleep 1 && "$prstat" --save "$tmp/b.cap"
	st=$?
	"$prstat" --compare "$tmp/a.cap" "$tmp/b.cap" --group cgroup -A >"$tmp/c.out" 2>"$tmp/c.err"
	cst=$?
	secs=$(sed -n 's/^Compare: .*, \([0-9.]*\) s apart$/\1/p' "$tmp/c.out")
	read -r _ _ tm_z _ _ _ slp_c _ <<<"$(grep ' /tsa-sleep$' "$tmp/c.out")"
	read -r _ _ _ ex_s run_s _ <<<"$(grep ' /tsa-spin$' "$tmp/c.out")"
	[ $st -eq 0 ] && [ $cst -eq 0 ] && num "$slp_c" 95 100 && num "$ex_s" 10 35 && num "$run_s" 60 90
	t $? "groups: --compare of two captures ${secs:-?} s apart, -A: /tsa-sleep SLP ${slp_c:-?} % (TIME ${tm_z:-?}: 2 threads), /tsa-spin EXEC ${ex_s:-?} % RUN ${run_s:-?} % (exit $st, $cst)"
	[ $cst -eq 0 ] || sed 's/^/# /' "$tmp/c.out" "$tmp/c.err"
	# Who woke the ticker between them: the captures carry the wakers.
	"$prstat" --compare "$tmp/a.cap" "$tmp/b.cap" -w -p "$tick" >"$tmp/w.out" 2>"$tmp/w.err"
	wst=$?
	ver=$(head -1 "$tmp/b.cap")
	read -r _ _ wk_n wk_pct _ <<<"$(awk '$2 == "SLP" && $9 == "timer"' "$tmp/w.out" | head -1)"
	# At most one wakeup a 50 ms sleep (and one in progress at each end).
	wk_hi=$(awk -v s="${secs:-0}" 'BEGIN { printf "%d", s / 0.05 + 2 }')
	[ "$ver" = "tsa-capture 3" ] && [ $wst -eq 0 ] && num "$wk_n" 5 "$wk_hi" && num "$wk_pct" 90 100
	wok=$?
	t $wok "wakers: --compare -w of two captures ($ver): the ticker's SLP ended by its timer ${wk_n:-?} times (5-$wk_hi: 50 ms a sleep in ${secs:-?} s), ${wk_pct:-?} % of its time off CPU (90-100) (exit $wst)"
	[ $wok -eq 0 ] || sed 's/^/# /' "$tmp/w.out" "$tmp/w.err"
	kill "$tick" 2>/dev/null
	wait "$tick" 2>/dev/null
	"$prstat" --compare /proc/tsa/all "$tmp/b.cap" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ $st -eq 5 ] && grep -q '^tsa-prstat: /proc/tsa/all: not a tsa-prstat capture' "$tmp/err"
	t $? "groups: --compare of /proc/tsa/all (not a capture): exit $st, $(head -c 200 "$tmp/err")"
	kill "$spin" "$slp" "$py" 2>/dev/null
	wait "$spin" "$slp" "$py" 2>/dev/null
else
	t 1 "groups: a cgroup v2 with cpu.max at $spin_cg"
fi
rmdir "$spin_cg" "$sleep_cg" 2>/dev/null
fi

# --- 8. the flight recorder ---
if want record; then
say "8. --record at 1 s while a thread spins, sleeps and waits for a lock, 4 s each"
rec=$tmp/rec
"$prstat" --record "$rec" --interval 1 2>"$tmp/rec.err" &
rpid=$!
pids+=("$rpid")
"$ptest" phases 4 >"$tmp/phases"
sleep 1.5	# a block after the last phase
read -r -a rstat <"/proc/$rpid/stat"
kill -TERM "$rpid"
wait "$rpid"
st=$?
[ $st -eq 0 ]
t $? "record: the recorder ends on SIGTERM with exit 0 (saw $st$([ -s "$tmp/rec.err" ] && echo ": $(head -c 200 "$tmp/rec.err")"))"
nthr=$(($(wc -l </proc/tsa/all) - 4))
rbytes=$(cat "$rec"/*.rec | wc -c)
say "record: $rbytes bytes for about ${SECONDS}s of test so far; the recorder used $(( (rstat[13] + rstat[14]) * 10 )) ms of CPU; $nthr threads now"
read -r _ ph_pid _ ph_tid <<<"$(grep '^pid ' "$tmp/phases")"
for phase in spin sleep lock; do
	read -r _ _ t0 t1 <<<"$(grep "^phase $phase " "$tmp/phases")"
	# Blocks of whole seconds inside the phase saw only it (a block
	# in the second the phase ends may come after it: the process
	# exits after its last phase).
	from=$(awk -v t="${t0:-0}" 'BEGIN { printf "%d", t + 1 }')
	to=$(awk -v t="${t1:-0}" 'BEGIN { printf "%d", t - 1 }')
	"$prstat" --replay "$rec" --from "@$from" --to "@$to" --summary -L \
		-p "${ph_pid:-0}" --json >"$tmp/ph.json" 2>"$tmp/ph.err"
	st=$?
	line=$(grep "\"tid\":${ph_tid:-0}," "$tmp/ph.json")
	read -r usr slp lck secs <<<"$(python3 -c 'import json, sys
o = json.loads(sys.argv[1]); s = o["solaris"]
print(s["USR"], s["SLP"], s["LCK"], o["elapsed_ns"] / 1e9)' "$line" 2>/dev/null)"
	case $phase in
	spin) key=USR v=$usr ;;
	sleep) key=SLP v=$slp ;;
	lock) key=LCK v=$lck ;;
	esac
	[ $st -eq 0 ] && awk -v v="${v:-0}" 'BEGIN { exit !(v >= 80) }'
	t $? "record: the $phase phase's window replayed (--from @$from --to @$to --summary): the phases thread is $key ${v:-?} % of ${secs:-?} s (expected >= 80; USR ${usr:-?} SLP ${slp:-?} LCK ${lck:-?}; exit $st$([ -s "$tmp/ph.err" ] && echo ": $(head -c 200 "$tmp/ph.err")"))"
done
# The wakers were recorded too: the sleep phase's one nanosleep of 4 s,
# ended by its timer inside a window from its start to the lock phase.
read -r _ _ s0 _ <<<"$(grep "^phase sleep " "$tmp/phases")"
read -r _ _ l0 _ <<<"$(grep "^phase lock " "$tmp/phases")"
from=$(awk -v t="${s0:-0}" 'BEGIN { printf "%d", t }')
to=$(awk -v t="${l0:-0}" 'BEGIN { printf "%d", t + 2 }')
"$prstat" --replay "$rec" --from "@$from" --to "@$to" --summary -wL \
	-p "${ph_pid:-0}" >"$tmp/ph.w" 2>"$tmp/ph.err"
st=$?
read -r wn wt <<<"$(awk -v tid="${ph_tid:-0}" '$2 == tid && $3 == "SLP" && $10 == "timer" { print $4, $6 }' "$tmp/ph.w")"
[ $st -eq 0 ] && [ "${wn:-0}" -ge 1 ] &&
	awk -v t="${wt:-0}" 'BEGIN { exit !(t ~ /^[0-9.]+s$/ && t + 0 >= 3.5 && t + 0 <= 4.6) }'
wok=$?
t $wok "record: -w of a window from the sleep phase to the lock phase replayed: the phases thread's SLP ended by its timer ${wn:-?} times (>= 1: the 4 s one, and the lock phase's 1 ms waits for its holder), ${wt:-?} (3.5-4.6 s; exit $st$([ -s "$tmp/ph.err" ] && echo ": $(head -c 200 "$tmp/ph.err")"))"
[ $wok -eq 0 ] || sed 's/^/# /' "$tmp/ph.w"
# The system-call rows were recorded too: the lock phase's window in -y.
read -r _ _ t0 t1 <<<"$(grep "^phase lock " "$tmp/phases")"
from=$(awk -v t="${t0:-0}" 'BEGIN { printf "%d", t + 1 }')
to=$(awk -v t="${t1:-0}" 'BEGIN { printf "%d", t - 1 }')
"$prstat" --replay "$rec" --from "@$from" --to "@$to" --summary -yL \
	-p "${ph_pid:-0}" >"$tmp/ph.y" 2>"$tmp/ph.err"
st=$?
line=$(grep -E " futex .*phases/${ph_tid:-0}\$" "$tmp/ph.y")
lck=$(awk '{ print $(NF - 5) }' <<<"$line")
[ $st -eq 0 ] && awk -v v="${lck:-0}" 'BEGIN { exit !(v >= 80) }'
t $? "record: -y of the lock phase's window replayed: the phases thread's futex call is LCK ${lck:-?} % of its time (expected >= 80; line: ${line:-none}; exit $st$([ -s "$tmp/ph.err" ] && echo ": $(head -c 200 "$tmp/ph.err")"))"
# The pictures of each phase's window (--svg), drawn by rsvg-convert:
# the phases thread's band, along its middle row, is the phase's state's
# colour over >= 95 % of its width (tests/userspace/fx/pixels.py reads
# the PNG; the states stack from the top, so a state with most of the
# time holds the middle).
pixels=$(cd "$(dirname "$0")/../userspace/fx" && pwd)/pixels.py
for phase in spin sleep lock; do
	read -r _ _ t0 t1 <<<"$(grep "^phase $phase " "$tmp/phases")"
	from=$(awk -v t="${t0:-0}" 'BEGIN { printf "%d", t + 1 }')
	to=$(awk -v t="${t1:-0}" 'BEGIN { printf "%d", t - 1 }')
	svg=$tmp/ph-$phase.svg
	"$prstat" --replay "$rec" --from "@$from" --to "@$to" -L \
		-p "${ph_pid:-0}" --svg "$svg" 2>"$tmp/ph.err"
	st=$?
	case $phase in
	spin) key=USR ;;
	sleep) key=SLP ;;
	lock) key=LCK ;;
	esac
	band=$(grep -o ">[^<>]*/${ph_tid:-0} in [^<>]*/${ph_pid:-0}</text>" "$svg" 2>/dev/null | head -1 | sed 's/^>//; s/<\/text>$//')
	rsvg-convert "$svg" -o "$tmp/ph-$phase.png" 2>>"$tmp/ph.err"
	read -r frac hit width <<<"$(python3 "$pixels" "$svg" "$tmp/ph-$phase.png" "$band" "$key" 2>&1)"
	[ $st -eq 0 ] && awk -v f="${frac:-0}" 'BEGIN { exit !(f >= 0.95) }'
	t $? "record: --svg of the $phase phase's window, drawn by rsvg-convert: the phases thread's band ('$band') is $key's colour over ${frac:-?} of its width (${hit:-?} of ${width:-?} px; expected >= 0.95; exit $st$([ -s "$tmp/ph.err" ] && echo ": $(head -c 200 "$tmp/ph.err")"))"
done
# The three phases as a Perfetto trace (a window that ends in the lock
# phase: a window's lines are those alive at its end), decoded by protoc
# against the project's subset of Perfetto's protos: the phases thread's
# slices are named USR, SLP and LCK, each with its states' time.
read -r _ _ s0 _ <<<"$(grep "^phase spin " "$tmp/phases")"
read -r _ _ _ l1 <<<"$(grep "^phase lock " "$tmp/phases")"
from=$(awk -v t="${s0:-0}" 'BEGIN { printf "%d", t }')
to=$(awk -v t="${l1:-0}" 'BEGIN { printf "%d", t - 1 }')
"$prstat" --replay "$rec" --from "@$from" --to "@$to" -L -p "${ph_pid:-0}" \
	--perfetto "$tmp/ph.pb" 2>"$tmp/ph.err"
st=$?
pfout=$(python3 "$(dirname "$pixels")/perfetto_check.py" \
	"$(dirname "$pixels")/../perfetto.proto" "$tmp/ph.pb" 2>&1)
pfrc=$?
names=$(protoc --decode=perfetto.protos.Trace \
	--proto_path="$(dirname "$pixels")/.." perfetto.proto <"$tmp/ph.pb" 2>/dev/null |
	awk '/^    name: "(USR|SLP|LCK)"$/ { n[$2] = 1 } END { for (k in n) printf "%s ", k }')
[ $st -eq 0 ] && [ $pfrc -eq 0 ] && [[ $names == *USR* && $names == *SLP* && $names == *LCK* ]]
t $? "record: --perfetto -L of the phases process's recording, decoded by protoc: slices named ${names:-none}(expected USR, SLP and LCK among them; $(head -1 <<<"$pfout"); exit $st)"
# tsa-record 2 keeps the LAT distributions: -H of the whole recording.
"$prstat" --replay "$rec" --summary -H -L >"$tmp/ph.H" 2>"$tmp/ph.err"
st=$?
nlat=$(awk '$3 == "LAT" && $4 > 0' "$tmp/ph.H" | wc -l)
[ $st -eq 0 ] && [ "$nlat" -ge 1 ]
t $? "record: --replay --summary -H -L of the whole recording (its LAT distributions): $nlat threads with LAT stays that ended (expected >= 1; exit $st$([ -s "$tmp/ph.err" ] && echo ": $(head -c 200 "$tmp/ph.err")"))"
"$prstat" --replay "$rec" -c -n 3 >"$tmp/replay.out" 2>"$tmp/replay.err"
st=$?
reps=$(grep -c '^Replay: ' "$tmp/replay.out")
[ $st -eq 0 ] && [ "$reps" -ge 9 ] && [ ! -s "$tmp/replay.err" ]
t $? "record: --replay of the whole recording: a report for each 1 s block ($reps, expected >= 9), nothing on stderr (exit $st)"

# A recorder killed at any moment, and a write torn mid-block.
"$prstat" --record "$tmp/rec2" --interval 0.2 2>/dev/null &
rpid=$!
sleep 1.5
kill -KILL "$rpid"
wait "$rpid" 2>/dev/null
f=("$tmp"/rec2/*.rec)
f=${f[0]}
"$prstat" --replay "$tmp/rec2" --json >"$tmp/r2.json" 2>"$tmp/r2.err"
st=$?
before=$(grep -c . "$tmp/r2.json")
[ $st -eq 0 ] && [ "$before" -gt 0 ]
t $? "record: a recorder killed with SIGKILL: its recording replays (exit $st, $before lines$([ -s "$tmp/r2.err" ] && echo "; $(head -c 200 "$tmp/r2.err")"))"
size=$(stat -c %s "$f" 2>/dev/null || echo 0)
truncate -s $((size - 7)) "$f" 2>/dev/null
"$prstat" --replay "$tmp/rec2" --json >"$tmp/r2.json" 2>"$tmp/r2.err"
st=$?
after=$(grep -c . "$tmp/r2.json")
[ $st -eq 0 ] && [ "$after" -gt 0 ] && [ "$after" -lt "$before" ] && grep -q 'a torn block (cut short)' "$tmp/r2.err"
t $? "record: its last block cut short: replayed without it, with a message (exit $st, $after lines of $before; $(head -c 200 "$tmp/r2.err"))"
fi

# --- 4b. the module goes away ---
# Evidence for clock problems: is sched_clock stable here, what tsa saw.
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
say "clock: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null);" \
	"$(dmesg | grep -iE 'tsc.*unstable|sched_clock.*unstable|Marking clock' | head -n2 | tr '\n' ' ')"
grep -iE 'clamp|backw|clock' /sys/kernel/debug/tsa/stats 2>/dev/null | sed 's/^/# debugfs: /'

if [ -n "$with_exporter" ]; then
say "9. tsa-exporter scraped by a real Prometheus"
# shellcheck source=tests/guest/exporter-tests.sh
. "$(dirname "$(readlink -f "$0")")/exporter-tests.sh"
fi

if want unload; then
say "4b. tsa.ko unloaded"
coproc HF { exec "$ptest" holdfd; }
pids+=("$HF_PID")
read -r -t 10 ready <&"${HF[0]}"
[ "$ready" = READY ]
t $? "unload: a process holds /proc/tsa/all and its /proc/tsa/<tid> open (saw ${ready:-nothing})"
# Unloading patches text: with the vCPUs in parallel (prstat-mt), only
# with the other CPUs offline (tests/guest/quiesce).
"${TSA_QUIESCE:?run it through tests/guest-run}" rmmod tsa
st=$?
t $st "unload: rmmod tsa succeeds while files are open (exit $st)"
echo go >&"${HF[1]}"
read -r -t 10 res <&"${HF[0]}"
[[ $res == all=* ]] && [[ $res != *=OK* ]]
t $? "unload: reading those open files afterwards fails cleanly (saw ${res:-nothing})"
"$prstat" -mL 1 1 >"$tmp/out" 2>"$tmp/err"
st=$?
want="tsa-prstat: /proc/tsa/all: not found; is the tsa module loaded? (sudo modprobe tsa)"
[ $st -eq 2 ] && [ "$(cat "$tmp/err")" = "$want" ] && [ ! -s "$tmp/out" ] && [ ! -e /proc/tsa ]
t $? "unload: tsa-prstat without the module exits 2 with the one-line message (saw $st: $(cat "$tmp/err"))"
"$prstat" -yL 1 1 >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && [ "$(cat "$tmp/err")" = "$want" ] && [ ! -s "$tmp/out" ]
t $? "unload: tsa-prstat -y without the module: the same (saw $st: $(cat "$tmp/err"))"

fi

say "done"
echo "1..$n"
echo "prstat: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
