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
#                timeslices, the kernel's own count).
# Then the HTTP edges: formats (promtool; the OpenMetrics parser of the
# Python client), gzip, the landing page, 404/405, a client that sends
# nothing, a 1 MiB header, 100 concurrent scrapes (one read serves
# several), a scrape while 10,000 threads come and go (no series lost),
# the memory bound, SIGTERM.
# Beside the tsa-prstat this suite was given (the tree's userspace/).
exporter=$(dirname "$(readlink -f "$0")")/../../userspace/tsa-exporter
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
seq 100 | xargs -P 100 -I{} curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 "$url" >"$tmp/c100"
r1=$(curl -s "$url" | awk '$1 == "tsa_exporter_reads_total" { print $2 }')
ok200=$(grep -c '^200$' "$tmp/c100")
[ "$ok200" = 100 ] && [ $((r1 - r0 - 1)) -lt 100 ]
t $? "exporter: 100 concurrent scrapes all 200 ($ok200), served by $((r1 - r0 - 1)) reads"
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
