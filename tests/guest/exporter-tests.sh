#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsa-exporter against a real Prometheus (issue 45), sourced by
# prstat-tests.sh (its t, say, tmp, pids, ptest, prstat) with tsa.ko
# loaded: known workloads in three cgroups, a Prometheus server scraping
# the exporter every second, and Prometheus's own answers (its HTTP API)
# against what the workloads must show:
#   /tsa-x-spin  one spinner held to 50 % of CPU 0 by cpu.max: USR at
#                most half a second a second, and its on-CPU and LAT
#                seconds adding up to one a second;
#   /tsa-x-lock  a thread waiting on a mutex its sibling holds asleep:
#                LCK one second a second;
#   /tsa-x-lat   two spinners pinned to CPU 1: LAT at least one second
#                a second and as schedstat's run_delay says, and
#                histogram_quantile(0.5) of their LAT stays within a log2
#                bucket of the mean stay schedstat gives (run_delay over
#                timeslices, the kernel's own count);
#   /tsa-x-exit  a process that burns 2 s of CPU and exits beside one
#                that burns 1 s and lives on: over a window spanning the
#                exit, increase() of the group's USR and on-CPU seconds is
#                what the two did by their schedstat, with no counter
#                reset and the series after the exit not below before.
# Then the HTTP edges: formats (promtool; the OpenMetrics parser of the
# Python client), gzip, the landing page, 404/405, a client that sends
# nothing, a 1 MiB header, 100 concurrent scrapes (one read serves
# several), a scrape while 10,000 threads come and go (no series lost),
# the memory bound, SIGTERM.
# Beside the tsa-prstat this suite was given (the tree's userspace/), or
# $TSA_EXPORTER (another build, e.g. an older one, to see what it gives).
exporter=${TSA_EXPORTER:-$(dirname "$(readlink -f "$0")")/../../userspace/tsa-exporter}
eport=9837 pport=9090
url=http://127.0.0.1:$eport/metrics
cgr=/sys/fs/cgroup
# Tolerances as the suites' (groups: cpu.max shares within 10-15 points).
rtol=0.12

# q PROMQL: Prometheus's answer (the first sample's value), or "none";
# evaluated at $qt (epoch seconds) when set, else now.
qt=
q() {
	local v
	v=$(curl -s --max-time 20 --data-urlencode "query=$1" ${qt:+--data-urlencode "time=$qt"} \
		"http://127.0.0.1:$pport/api/v1/query" |
		sed -n 's/.*"value":\[[^,]*,"\([^"]*\)"\].*/\1/p')
	echo "${v:-none}"
}
# samples SELECTOR RANGE: the raw samples Prometheus holds of one
# series, "timestamp value" a line (at $qt when set, else now).
samples() {
	curl -s --max-time 20 --data-urlencode "query=$1[$2]" ${qt:+--data-urlencode "time=$qt"} \
		"http://127.0.0.1:$pport/api/v1/query" |
		grep -o '\[[0-9.]*,"[^"]*"\]' | sed 's/[]["]//g; s/,/ /'
}
# after SELECTOR T N: wait (at most 30 s) until Prometheus holds N samples
# of SELECTOR stamped after T (epoch s), and print the last one's
# "timestamp value". A sample stamped after T was read after T (a scrape
# reads after its stamp), and before now (it is stored).
after() {
	local k s
	for ((k = 0; k < 150; k++)); do
		s=$(samples "$1" 1m | awk -v t="$2" '$1 > t')
		if [ "$(grep -c . <<<"$s")" -ge "$3" ]; then
			tail -n 1 <<<"$s"
			return 0
		fi
		sleep 0.2
	done
	return 1
}
# near V WANT TOL: |V - WANT| <= TOL
near() { awk -v v="$1" -v w="$2" -v t="$3" 'BEGIN { exit !(v != "none" && v != "NaN" && v - w <= t && w - v <= t) }'; }

mkdir -p "$cgr/tsa-x-spin" "$cgr/tsa-x-lock" "$cgr/tsa-x-lat"
echo +cpu >"$cgr/cgroup.subtree_control" 2>/dev/null
echo "50000 100000" >"$cgr/tsa-x-spin/cpu.max"
bash -c "echo \$\$ >$cgr/tsa-x-spin/cgroup.procs; exec taskset -c 0 bash -c 'while :; do :; done'" &
pids+=("$!")
bash -c "echo \$\$ >$cgr/tsa-x-lock/cgroup.procs; exec taskset -c 0 $ptest lockwait" >"$tmp/lw.out" &
pids+=("$!")
lat_pids=()
for k in 1 2; do
	bash -c "echo \$\$ >$cgr/tsa-x-lat/cgroup.procs; exec taskset -c 1 bash -c 'while :; do :; done'" &
	lat_pids+=("$!")
	pids+=("$!")
done

taskset -c 0 "$exporter" --listen "127.0.0.1:$eport" 2>"$tmp/exp.err" &
exp_pid=$!
pids+=("$exp_pid")
for ((k = 0; k < 100; k++)); do
	curl -s -o /dev/null "$url" && break
	sleep 0.2
done
code=$(curl -s -o "$tmp/m0.prom" -w '%{http_code} %{content_type}' "$url")
[ "$code" = "200 text/plain; version=0.0.4; charset=utf-8" ]
t $? "exporter: GET /metrics: 200, text format 0.0.4 (saw $code)"
if [ "${code%% *}" != 200 ]; then
	sed 's/^/# exporter: /' "$tmp/exp.err"
	return 0	# from this sourced file: the rest needs it
fi
promtool check metrics <"$tmp/m0.prom" >"$tmp/pt.out" 2>&1
t $? "exporter: promtool check metrics accepts a scrape ($(head -c 300 "$tmp/pt.out"))"
grep -q '^tsa_cgroup_state_seconds_total{cgroup="/tsa-x-lock",state="LCK"} ' "$tmp/m0.prom" &&
	grep -q '^tsa_up 1$' "$tmp/m0.prom" &&
	grep -q '^tsa_module_info{version="[^"]*",calibration="[a-z]*"} 1$' "$tmp/m0.prom" &&
	grep -q '^tsa_cgroup_stay_seconds_bucket{cgroup="/tsa-x-lat",state="LAT",le="+Inf"} ' "$tmp/m0.prom"
t $? "exporter: the groups' series, LAT buckets on a default load, tsa_up 1 and tsa_module_info ($(grep -c . "$tmp/m0.prom") lines)"

code=$(curl -s -H 'Accept: application/openmetrics-text; version=1.0.0; charset=utf-8,text/plain;q=0.5' \
	-o "$tmp/m0.om" -w '%{http_code} %{content_type}' "$url")
[ "$code" = "200 application/openmetrics-text; version=1.0.0; charset=utf-8" ] &&
	[ "$(tail -n 1 "$tmp/m0.om")" = "# EOF" ]
t $? "exporter: Accept: application/openmetrics-text gets OpenMetrics 1.0, ending in # EOF (saw $code)"
if /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
	/usr/bin/python3 -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
n = sum(len(f.samples) for f in text_string_to_metric_families(open(sys.argv[1]).read()))
print(n)' "$tmp/m0.om" >"$tmp/om.out" 2>&1
	t $? "exporter: the OpenMetrics parser of the Python client reads it ($(tail -n 1 "$tmp/om.out") samples)"
fi
hdr=$(curl -s --compressed -D - -o "$tmp/m0.gz.prom" "$url" | tr -d '\r')
grep -qi '^content-encoding: gzip$' <<<"$hdr" && promtool check metrics <"$tmp/m0.gz.prom" >/dev/null 2>&1
t $? "exporter: Accept-Encoding: gzip gets a gzip body that decodes to valid text"
code=$(curl -s -o "$tmp/land" -w '%{http_code}' "http://127.0.0.1:$eport/")
[ "$code" = 200 ] && grep -q 'href="/metrics"' "$tmp/land"
t $? "exporter: / is a landing page that links /metrics ($code)"
codes=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$eport/nope") 
codes+=" $(curl -s -o /dev/null -w '%{http_code}' -X POST "$url")"
[ "$codes" = "404 405" ]
t $? "exporter: another path 404, POST 405 (saw $codes)"

# Least privilege (tsa-exporter.service): another user with
# CAP_SYS_PTRACE alone reads every thread, as root does; without it,
# only its own.
if command -v setpriv >/dev/null; then
	users() {	# users() PORT CAPS: the user groups' names a scrape has
		setpriv --reuid=65534 --regid=65534 --clear-groups ${2:+--inh-caps=+sys_ptrace --ambient-caps=+sys_ptrace} \
			"$exporter" --listen "127.0.0.1:$1" --group user 2>/dev/null &
		local p=$! k
		for ((k = 0; k < 100; k++)); do
			curl -s -o "$tmp/u.prom" "http://127.0.0.1:$1/metrics" && break
			sleep 0.2
		done
		kill "$p"
		wait "$p" 2>/dev/null
		sed -n 's/^tsa_user_threads{user="\([^"]*\)"} .*/\1/p' "$tmp/u.prom" | sort | xargs
	}
	withcap=$(users $((eport + 1)) cap)
	without=$(users $((eport + 2)) "")
	[[ " $withcap " == *" root "* ]] && [[ " $without " != *" root "* ]]
	t $? "exporter: as nobody with CAP_SYS_PTRACE alone it reads root's threads too (users: $withcap), without it not (users: ${without:-none})"
fi

# The real Prometheus, on CPU 0 (CPU 1 is the LAT pair's alone).
say "prometheus: start, scrape 14 s"
cat >"$tmp/prom.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: tsa
    scrape_timeout: 1s
    static_configs:
      - targets: ['127.0.0.1:$eport']
EOF
taskset -c 0 prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/prom" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$tmp/prom.log" 2>&1 &
prom_pid=$!
pids+=("$prom_pid")
for ((k = 0; k < 300; k++)); do
	curl -s -o /dev/null -f "http://127.0.0.1:$pport/-/ready" && break
	sleep 0.5
done
curl -s -o /dev/null -f "http://127.0.0.1:$pport/-/ready"
t $? "prometheus: the server is ready ($((k / 2)) s)"
sched() {	# sum of run_delay and of timeslices of the LAT pair
	local p rd=0 pc=0 a b c
	for p in "${lat_pids[@]}"; do
		read -r a b c <"/proc/$p/schedstat"
		rd=$((rd + b)) pc=$((pc + c))
	done
	echo "$rd $pc"
}
# Let it scrape, then a window of 10 s that schedstat also measures;
# Prometheus is asked about that same window (time=t1, range t1 - t0),
# however long the asking takes.
sleep 4
read -r rd0 pc0 <<<"$(sched)"
t0=$(date +%s.%N)
sleep 10
read -r rd1 pc1 <<<"$(sched)"
t1=$(date +%s.%N)
# The exit case's two processes start now, on CPU 1 (the LAT pair's,
# measured), while Prometheus is asked about the window just closed; they
# join /tsa-x-exit and wait there, blocked, for "go".
for p in "${lat_pids[@]}"; do kill "$p" 2>/dev/null; done
mkdir -p "$cgr/tsa-x-exit"
mkfifo "$tmp/x-go" "$tmp/x-L.bye" "$tmp/x-S.bye"
cat >"$tmp/x-work.sh" <<'EOF'
# x-work.sh DIR NAME NS: join /tsa-x-exit, wait for DIR/x-go, then spin
# (user mode; a read of its own schedstat every 10,000 turns) until it
# has run NS ns more, write DIR/x-NAME.done and wait for DIR/x-NAME.bye.
echo $$ >/sys/fs/cgroup/tsa-x-exit/cgroup.procs
echo ready >"$1/x-$2.ready"
read -r _ <"$1/x-go"
read -r c0 _ </proc/self/schedstat
c=$c0
while ((c < c0 + $3)); do
	for ((i = 0; i < 10000; i++)); do :; done
	read -r c _ </proc/self/schedstat
done
echo done >"$1/x-$2.done"
read -r _ <"$1/x-$2.bye"
EOF
taskset -c 1 bash "$tmp/x-work.sh" "$tmp" L 1000000000 &
x_l=$!
taskset -c 1 bash "$tmp/x-work.sh" "$tmp" S 2000000000 &
x_s=$!
pids+=("$x_l" "$x_s")
wms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 + 0.5 }')
w=${wms}ms
sleep 2	# the scrape after t1 is in
qt=$t1
up=$(q 'up{job="tsa"}')
[ "$up" = 1 ]
t $? "prometheus: up{job=\"tsa\"} is 1 (saw $up; $(q 'scrape_samples_scraped{job="tsa"}') samples a scrape)"
st='state_seconds_total{cgroup'
usr=$(q "rate(tsa_cgroup_${st}=\"/tsa-x-spin\",state=\"USR\"}[${w}])")
on=$(q "sum(rate(tsa_cgroup_${st}=\"/tsa-x-spin\",state=~\"USR|SYS|TRP|LAT\"}[${w}]))")
awk -v u="$usr" -v r="$rtol" 'BEGIN { exit !(u != "none" && u > 0.2 && u <= 0.5 + r) }' && near "$on" 1 "$rtol"
t $? "prometheus: rate of /tsa-x-spin's USR $usr s/s (0.2-0.62: held to half a CPU), its USR+SYS+TRP+LAT $on s/s (1 +- $rtol)"
lck=$(q "rate(tsa_cgroup_${st}=\"/tsa-x-lock\",state=\"LCK\"}[${w}])")
near "$lck" 1 "$rtol"
t $? "prometheus: rate of /tsa-x-lock's LCK $lck s/s (1 +- $rtol: one thread waits on its sibling's mutex)"
# Who woke whom: the edges, ingested; timers end sleeps on every machine.
# One query, one instant: the series and the gauge of the same scrape.
edges=$(q 'count(tsa_waker_seconds{job="tsa"})')
diff=$(q 'count(tsa_waker_seconds{job="tsa"}) - on() tsa_exporter_waker_edges{job="tsa"}')
tmr=$(q 'sum(tsa_waker_wakeups{job="tsa",waker="timer"})')
awk -v e="$edges" -v d="$diff" -v t="$tmr" 'BEGIN { exit !(e != "none" && e >= 1 && e <= 50 && d == 0 && t != "none" && t > 0) }'
t $? "prometheus: waker edges ingested ($edges series, at most 50; minus tsa_exporter_waker_edges of the same scrape: $diff), timers among the wakers ($tmr wakeups)"
lat=$(q "rate(tsa_cgroup_${st}=\"/tsa-x-lat\",state=\"LAT\"}[${w}])")
slat=$(awk -v d=$((rd1 - rd0)) -v w="$wms" 'BEGIN { printf "%.4f", d / w / 1e6 }')
awk -v l="$lat" -v s="$slat" -v r="$rtol" 'BEGIN { exit !(l != "none" && l >= 1 - r && l - s <= r * s && s - l <= r * s) }'
t $? "prometheus: rate of /tsa-x-lat's LAT $lat s/s: at least 1 - $rtol (two spinners on one CPU: one always waits) and within $rtol of schedstat's run_delay, $slat s/s"
med=$(q "histogram_quantile(0.5, sum by (le) (rate(tsa_cgroup_stay_seconds_bucket{cgroup=\"/tsa-x-lat\",state=\"LAT\"}[${w}])))")
qt=
mean=$(awk -v d=$((rd1 - rd0)) -v n=$((pc1 - pc0)) 'BEGIN { if (n > 0) printf "%.6f", d / n / 1e9; else print "none" }')
awk -v m="$med" -v s="$mean" 'BEGIN { exit !(m != "none" && s != "none" && m + 0 > 0 && m <= 2 * s && m >= s / 2) }'
t $? "prometheus: histogram_quantile(0.5) of /tsa-x-lat's LAT stays ${med} s, within a log2 bucket of schedstat's mean wait ${mean} s (run_delay over timeslices, ${w})"

# A process's exit: the group /tsa-x-exit has a long-lived process L and a
# short-lived S. Both burn CPU (L 1 s, S 2 s, by their schedstat), then S
# exits while Prometheus scrapes every second. The window runs from a
# scrape with both blocked before the burn to the second scrape after the
# exit, so increase() extrapolates over 1 ms only. The exporter cannot see
# a process's time after its last scrape (tsa-exporter(8)): S waits,
# blocked, until a scrape has read it whole, then exits. Against tsa's own
# numbers for L and S (/proc/tsa/PID, read with both blocked), the
# increase is exact: 1 ms for the extrapolation and the decimals, plus at
# most 50 ms above for S's way out if a scrape caught it (its wakeup and
# exit, after the reading). Against schedstat, tsa's on-CPU seconds
# (USR+SYS+TRP) within 1 % as in the engine suite, plus the same 50 ms;
# USR alone (the spin is user mode but for its schedstat reads and the
# interrupts it takes, which tsa counts in the USR or SYS they hit) at
# least 95 % of it.
say "prometheus: /tsa-x-exit: S burns 2 s of CPU and exits, L burns 1 s and lives on"
xsel='tsa_cgroup_state_seconds_total{cgroup="/tsa-x-exit",state="USR"}'
xstates='tsa_cgroup_state_seconds_total{cgroup="/tsa-x-exit",state=~"USR|SYS|TRP"}'
xblocked() {	# xblocked PID: its schedstat's on-CPU ns, once it stays put 0.2 s
	local a b k
	read -r a _ <"/proc/$1/schedstat"
	for ((k = 0; k < 100; k++)); do
		sleep 0.2
		read -r b _ <"/proc/$1/schedstat"
		[ "$a" = "$b" ] && break
		a=$b
	done
	echo "$b"
}
xtsa() {	# xtsa PID STATE-REGEX: the process's ns in those states, by tsa
	# (%.0f: mawk's %d stops at 2^31 - 1)
	awk -v re="^process-($2)\$" '$1 ~ re { s += $2 } END { printf "%.0f", s }' "/proc/tsa/$1"
}
for ((k = 0; k < 150; k++)); do
	[ -e "$tmp/x-L.ready" ] && [ -e "$tmp/x-S.ready" ] && break
	sleep 0.2
done
l0=$(xblocked "$x_l") s0=$(xblocked "$x_s")
lu0=$(xtsa "$x_l" USR) su0=$(xtsa "$x_s" USR)
ta=$(date +%s.%N)
read -r xta va <<<"$(after "$xsel" "$ta" 1)"
: >"$tmp/x-go"
for ((k = 0; k < 600; k++)); do
	[ -e "$tmp/x-L.done" ] && [ -e "$tmp/x-S.done" ] && break
	sleep 0.1
done
l1=$(xblocked "$x_l") s1=$(xblocked "$x_s")
lu1=$(xtsa "$x_l" USR) su1=$(xtsa "$x_s" USR)
tb=$(date +%s.%N)
read -r tpre vpre <<<"$(after "$xsel" "$tb" 1)"
echo bye >"$tmp/x-S.bye"
wait "$x_s"
xst=$?
tx=$(date +%s.%N)
read -r tpost vpost <<<"$(after "$xsel" "$tx" 2)"
xl=$(awk -v a="$((l1 - l0))" 'BEGIN { printf "%.4f", a / 1e9 }')
xs=$(awk -v a="$((s1 - s0))" 'BEGIN { printf "%.4f", a / 1e9 }')
xexp=$(awk -v a="$((l1 - l0 + s1 - s0))" 'BEGIN { printf "%.4f", a / 1e9 }')
xtexp=$(awk -v a="$((lu1 - lu0 + su1 - su0))" 'BEGIN { printf "%.6f", a / 1e9 }')
xtol=$(awk -v e="$xexp" 'BEGIN { printf "%.4f", 0.01 * e + 0.05 }')
# 1 ms before the first sample (+ .5: the stamps are whole ms)
xw=$(awk -v a="${xta:-0}" -v b="${tpost:-0}" 'BEGIN { printf "%d", (b - a) * 1000 + 1.5 }')ms
qt=$tpost
xusr=$(q "increase(${xsel}[${xw}])")
xon=$(q "sum(increase(${xstates}[${xw}]))")
xproc=$(q 'tsa_cgroup_processes{cgroup="/tsa-x-exit"}')
# resets() of each counter family of the group, summed one family at a
# time (resets() drops the name, and families share their other labels),
# all in one query; the families named when it is not 0.
xsum='' xbad=''
xnames=$(curl -s -G --max-time 20 --data-urlencode 'match[]={cgroup="/tsa-x-exit"}' \
	"http://127.0.0.1:$pport/api/v1/label/__name__/values" |
	grep -o '"tsa_cgroup_[a-z_]*_\(total\|bucket\|sum\|count\)"' | tr -d '"')
for nm in $xnames; do
	xsum+="${xsum:+ + }sum(resets(${nm}{cgroup=\"/tsa-x-exit\"}[${xw}]))"
done
xres=$(q "${xsum:-none}")
if [ "$xres" != 0 ]; then
	for nm in $xnames; do
		r=$(q "sum(resets(${nm}{cgroup=\"/tsa-x-exit\"}[${xw}]))")
		[ "$r" = 0 ] || xbad+=" $nm:$r"
	done
fi
xn=$(q "count(last_over_time({__name__=~\"tsa_cgroup_.+_(total|bucket|sum|count)\",cgroup=\"/tsa-x-exit\"}[${xw}]))")
qt=$tpre
xproc0=$(q 'tsa_cgroup_processes{cgroup="/tsa-x-exit"}')
qt=
[ -n "$xta" ] && [ -n "$tpre" ] && [ -n "$tpost" ] && [ "$xst" = 0 ] && [ "$xproc0" = 2 ] && [ "$xproc" = 1 ]
t $? "prometheus: /tsa-x-exit's window spans S's exit: scrapes at $xta (before the burn), $tpre (both done), $tpost (after S's exit, status $xst); tsa_cgroup_processes $xproc0 then $xproc (expected 2 then 1)"
awk -v u="$xusr" -v e="$xtexp" 'BEGIN { exit !(u != "none" && u - e >= -0.001 && u - e <= 0.051) }'
t $? "prometheus: increase() of /tsa-x-exit's USR over ${xw} across S's exit: expected tsa's own ${xtexp} s (/proc/tsa: L $(((lu1 - lu0) / 1000000)) ms + S $(((su1 - su0) / 1000000)) ms; -0.001 +0.051), seen ${xusr} s"
near "$xon" "$xexp" "$xtol"
t $? "prometheus: increase() of /tsa-x-exit's USR+SYS+TRP over ${xw} across S's exit: expected ${xexp} s (schedstat: L ${xl} + S ${xs}) +- ${xtol}, seen ${xon} s"
awk -v u="$xusr" -v e="$xexp" -v t="$xtol" 'BEGIN { exit !(u != "none" && u >= 0.95 * e && u <= e + t) }'
t $? "prometheus: increase() of /tsa-x-exit's USR over ${xw} across S's exit: expected ${xexp} s (at least 95 %, at most + ${xtol}), seen ${xusr} s"
[ "$xres" = 0 ] && [ "$xn" != none ] && [ "$xn" -gt 0 ]
t $? "prometheus: resets() over ${xw} across S's exit: expected 0, seen ${xres}${xbad:+ (${xbad# })} in ${xn} counter series of /tsa-x-exit"
awk -v a="$vpre" -v b="$vpost" 'BEGIN { exit !(a != "" && b != "" && b >= a) }'
t $? "prometheus: /tsa-x-exit's USR after S's exit ${vpost} s, expected at least before it ${vpre} s (and before the burn ${va} s)"

# The HTTP edges.
say "exporter: the HTTP edges"
exec 7<>"/dev/tcp/127.0.0.1/$eport"	# connects and sends nothing
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$url")
[ "$code" = 200 ]
t $? "exporter: a client that connects and sends nothing does not stop a scrape ($code)"
{ printf 'X-Big: '; head -c 1048576 /dev/zero | tr '\0' a; echo; } >"$tmp/big.hdr"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -H @"$tmp/big.hdr" "$url")
code2=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$url")
[ "$code" != 200 ] && [ "$code2" = 200 ]
t $? "exporter: a 1 MiB header is refused ($code) and the next scrape answered ($code2)"
exec 7>&-
r0=$(curl -s "$url" | awk '$1 == "tsa_exporter_reads_total" { print $2 }')
# From 7 source addresses: the exporter answers at most 16 connections
# from one address at a time (test-exporter checks that limit).
for i in $(seq 100); do echo "127.0.0.$((i % 7 + 1))"; done |
	xargs -P 100 -I{} curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 --interface {} "$url" >"$tmp/c100"
r1=$(curl -s "$url" | awk '$1 == "tsa_exporter_reads_total" { print $2 }')
ok200=$(grep -c '^200$' "$tmp/c100")
[ "$ok200" = 100 ] && [ $((r1 - r0 - 1)) -lt 100 ]
t $? "exporter: 100 concurrent scrapes from 7 addresses all 200 ($ok200), served by $((r1 - r0 - 1)) reads"
say "exporter: scrapes while 10,000 threads come and go"
"$ptest" churn 10000 >"$tmp/churn.out" &
churn=$!
bad=0 scrapes=0
while kill -0 "$churn" 2>/dev/null; do
	code=$(curl -s -o "$tmp/mc.prom" -w '%{http_code}' --max-time 20 "$url")
	scrapes=$((scrapes + 1))
	if [ "$code" != 200 ] || ! grep -q '^tsa_cgroup_state_seconds_total{cgroup="/tsa-x-lock",state="LCK"} ' "$tmp/mc.prom" ||
		! promtool check metrics <"$tmp/mc.prom" >/dev/null 2>&1; then
		bad=$((bad + 1))
	fi
done
wait "$churn"
[ "$bad" = 0 ] && [ "$scrapes" -gt 0 ]
t $? "exporter: $scrapes scrapes while $(cat "$tmp/churn.out") threads came and went: every one 200, valid and with /tsa-x-lock's series ($bad bad)"
hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$exp_pid/status")
[ "${hwm:-999999}" -lt 65536 ]
t $? "exporter: its peak memory ${hwm:-?} kB, under 64 MiB"
kill "$prom_pid" 2>/dev/null
kill -TERM "$exp_pid"
wait "$exp_pid"
st=$?
t $st "exporter: SIGTERM ends it with exit 0 (exit $st; $(head -c 200 "$tmp/exp.err" | tr '\n' ' '))"
for p in "${lat_pids[@]}"; do kill "$p" 2>/dev/null; done
