#!/bin/bash
# make bench: overhead benchmarks in one guest boot (see tests/guest/bench.sh):
# time ratios, and guest instructions per operation counted by a QEMU
# plugin (tests/bench/insn-meter.c) for the same loops.
#
#   tests/bench.sh [--profile]
#
# --profile (make bench-profile): one round of "off", "floor", "on" and
# "syscalls=0", with the guest booted nokaslr and the meter counting the
# instructions of every code address inside the brackets; prints, per
# loop, the kernel functions whose instructions per operation tsa (or the
# floor) changes most: where tsa's cost goes.
#
# TSA_BENCH_APPEND: more kernel parameters for the guest, e.g.
# "nohz_full=1" (the loops run on CPU 1) to count what context tracking
# and tsa's boundary hooks add.
set -euo pipefail
profile=
[ "${1:-}" = --profile ] && profile=profile
cd "$(dirname "$0")/.."
TSA_PROG=bench
# shellcheck source=tests/lib.sh
. tests/lib.sh
bash tests/deps.sh
# The eBPF peer (not a test dependency: only the bench needs it).
command -v bpftrace >/dev/null || DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends bpftrace >/dev/null ||
	tsa_log "bpftrace could not be installed: no eBPF peer in this run"
tsa_pin_kernels
make -s module userspace
out=tests/out/bench
rm -rf "$out" && mkdir -p "$out"
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-bench tests/bench/tsa-bench.c
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-selfbench tests/bench/tsa-selfbench.c \
	userspace/libtsa.a
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$out/insn-meter.so" tests/bench/insn-meter.c
# The floor module (kbuild writes its products beside the source, as for tsa).
make -s -C "$KDIR" M="$PWD/tests/bench/floor" modules >"$out/floor.log" 2>&1 ||
	{ cat "$out/floor.log"; exit 1; }
echo "bench: kernel $TSA_KERNEL, QEMU TCG single-threaded, tsc=reliable, instruction meter $out/insn-meter.so${profile:+ (profile)}"
plugin="$PWD/$out/insn-meter.so,out=$PWD/$out/meter.txt"
append=()
for a in ${TSA_BENCH_APPEND:-}; do
	append+=(--append "$a")
done
if [ -n "$profile" ]; then
	plugin="$plugin,profile=$PWD/$out/profile.txt"
	# Debian's System.map is a stub: the guest writes its kernel's text
	# symbols (fixed by nokaslr) to this disk.
	truncate -s 32M "$out/kallsyms.img"
	append+=(--append nokaslr --disk "$out/kallsyms.img")
fi
# guest-run boots with tsc=reliable (the TSC clock, as on real machines;
# tsa reads the clock at every event) and single-threaded TCG, which the
# bench needs: it loads and unloads modules many times (see tests/guest-run).
GUEST_RUN_QEMU_ARGS="-plugin $plugin" \
	tests/guest-run --kernel "$TSA_KERNEL" --tcg-single --mem 6G --timeout 3600 "${append[@]}" -- \
	bash tests/guest/bench.sh "$PWD/tsa.ko" "$PWD/tests/bench/floor/tsa_floor.ko" \
	"$PWD/tests/out/tsa-bench" "$PWD/userspace/tsa-prstat" "$PWD/tests/bench/peer.bt" \
	$profile | tee "$out/guest.txt" | grep -v '^meter \|^syms \|^bench-summary '

# Instructions per operation: the n-th "meter CONFIG TEST N" line of the
# guest goes with the n-th stop marker (id 2) the plugin saw, whose fields
# are the vCPU, then instructions, locked instructions, fences, clock
# reads, IRQ flag changes, the cache lines module code wrote (kernel
# stacks apart), and what the other vCPUs executed meanwhile: see
# tests/bench/insn-meter.c.
awk '$1 == 2 { $1 = ""; print substr($0, 2) }' "$out/meter.txt" >"$out/stops.txt"
# "3 VCPU TASK": a loop's task joined when it left a CPU. The pipe and
# futex loops switch all the time: without one, the meter found no
# context switch in this kernel, and its brackets count every task.
if ! grep -q '^3 ' "$out/meter.txt"; then
	echo "bench: warning: the meter found no context switch; brackets count every task on the vCPU"
fi
grep '^meter ' "$out/guest.txt" | paste -d' ' - "$out/stops.txt" | awk '
	NF != 13 { bad = 1; exit }
	{ c = $2; t = $3; n = $4; v = $6 / n
	  if (!(c in seenc)) { seenc[c] = 1; cs[++nc] = c }
	  if (t ~ /^wl:/) { if (!(t in seenw)) { seenw[t] = 1; ws[++nw] = t } }
	  else if (!(t in seent)) { seent[t] = 1; ts[++nt] = t }
	  k = c "/" t
	  all[k, ++rounds[k]] = v
	  # What the other vCPU ran meanwhile: a worker woken there, RCU.
	  oth[k, rounds[k]] = $13 / n
	  # The classes come from the round of least instructions.
	  if (!(k in best) || v < best[k]) {
		best[k] = v
		for (i = 7; i <= 12; i++) cls[k, i - 6] = $i / n
	  }
	  if ($5 != 1) vcpu = 1 }
	# The median of a configuration'\''s rounds (the targets are medians).
	function median(k) { return median_of(all, k) }
	function median_of(a, k,   n, i, j, x, m) {
		n = rounds[k]
		for (i = 1; i <= n; i++) m[i] = a[k, i]
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && m[j - 1] > m[j]; j--) { x = m[j]; m[j] = m[j - 1]; m[j - 1] = x }
		return n % 2 ? m[(n + 1) / 2] : (m[n / 2] + m[n / 2 + 1]) / 2
	}
	function added(c, t, i,   o, at) {
		o = "off/" t
		if (c ~ /@/) { split(c, at, "@"); o = "off@" at[2] "/" t }
		return cls[c "/" t, i] - (i <= 4 ? cls[o, i] : 0)
	}
	END {
		if (bad || !nc) { print "bench: the meter lines and the plugin'\''s markers do not pair up"; exit 1 }
		if (vcpu) print "bench: warning: a bracket ended on another vCPU than 1"
		print ""
		print "Guest instructions per operation (least of the rounds; +N: added to the run"
		print "without a module; xF: tsa'\''s added instructions / the floor'\''s; CONFIG@N:"
		print "with N idle threads on the machine, +N against off@N). Counted: what the"
		print "loop'\''s own tasks execute, their interrupts included (fork, thread: the whole vCPU)"
		printf "%-13s", "config"
		for (j = 1; j <= nt; j++) printf " %24s", ts[j]
		print ""
		for (i = 1; i <= nc; i++) {
			c = cs[i]; printf "%-13s", c
			for (j = 1; j <= nt; j++) {
				t = ts[j]
				if (!((c "/" t) in best)) { printf " %24s", "-"; continue }
				b = best[c "/" t]; o = best["off/" t]
				if (c ~ /@/) { split(c, at, "@"); o = best["off@" at[2] "/" t] }
				f = best["floor/" t] - o
				if (c == "off" || c ~ /^off@/) printf " %24.0f", b
				else if (c == "floor" || c == "bpftrace" || c == "delayacct") printf " %10.0f %+8.0f %4s", b, b - o, ""
				else printf " %10.0f %+8.0f %4.1fx", b, b - o, (f > 0 ? (b - o) / f : 0)
			}
			print ""
		}
		print ""
		print "What hardware pays beyond the count, per operation, added to the run without"
		print "a module (same round as above): L locked instructions, F fences, T clock"
		print "reads (rdtsc/rdtscp), I IRQ flag changes (pushf/popf/cli/sti); and W the"
		print "distinct cache lines module code wrote per kernel entry, summed, with the"
		print "kernel stack'\''s lines apart (S)"
		printf "%-13s", "config"
		for (j = 1; j <= nt; j++) printf " %34s", ts[j] "  L     F     T     I     W     S"
		print ""
		for (i = 1; i <= nc; i++) {
			c = cs[i]
			if (c == "off" || c ~ /^off@/) continue
			printf "%-13s", c
			for (j = 1; j <= nt; j++) {
				t = ts[j]
				if (!((c "/" t) in best)) { printf " %34s", "-"; continue }
				printf "  "
				for (x = 1; x <= 6; x++) printf " %5.2f", added(c, t, x)
			}
			print ""
		}
		if (("on/" ts[1]) in best && ("bpftrace/" ts[1]) in best) {
			print ""
			print "tsa (default) against the floor and the eBPF peer, instructions added per operation:"
			for (j = 1; j <= nt; j++) {
				t = ts[j]; o = best["off/" t]; a = best["on/" t] - o
				f = best["floor/" t] - o; e = best["bpftrace/" t] - o
				printf "  %-8s tsa %+8.0f  floor %+8.0f  bpftrace %+8.0f  tsa/floor %5.2f  tsa/bpftrace %5.2f\n",
					t, a, f, e, (f > 0 ? a / f : 0), (e > 0 ? a / e : 0)
			}
		}
		if (("on/" ts[1]) in best && ("delayacct/" ts[1]) in best) {
			print ""
			print "tsa (default) against the kernel'\''s delay accounting (kernel.task_delayacct=1):"
			for (j = 1; j <= nt; j++) {
				t = ts[j]; o = best["off/" t]; a = best["on/" t] - o
				d = best["delayacct/" t] - o
				printf "  %-8s tsa %+8.0f  delayacct %+8.0f  tsa/delayacct %5.2f\n",
					t, a, d, (d > 0 ? a / d : 0)
			}
		}
		# Work handed to another CPU is not in the counts above.
		print ""
		print "What the other vCPU executed during each bracket, per operation (median of"
		print "the rounds; +N: added to the run without a module): a worker woken there,"
		print "an RCU callback, the idle CPU'\''s own ticks"
		printf "%-13s", "config"
		for (j = 1; j <= nt; j++) printf " %18s", ts[j]
		print ""
		for (i = 1; i <= nc; i++) {
			c = cs[i]; printf "%-13s", c
			for (j = 1; j <= nt; j++) {
				t = ts[j]
				if (!((c "/" t) in best)) { printf " %18s", "-"; continue }
				o = "off/" t
				if (c ~ /@/) { split(c, at, "@"); o = "off@" at[2] "/" t }
				b = median_of(oth, c "/" t)
				if (c == "off" || c ~ /^off@/) printf " %18.0f", b
				else printf " %9.0f %+8.0f", b, b - median_of(oth, o)
			}
			print ""
		}
		# Whole workloads: what each configuration adds to the job itself
		# instructions, in percent (least of the rounds).
		if (nw) {
			print ""
			print "Whole workloads (tests/guest/bench.sh): guest instructions of one run without"
			print "a module, and what each configuration adds, in % of it (least of the rounds)"
			printf "%-12s %14s", "workload", "off"
			split("on floor delayacct bpftrace", wc, " ")
			for (q = 1; q <= 4; q++) printf " %10s", wc[q]
			print "  tsa/floor"
			for (j = 1; j <= nw; j++) {
				t = ws[j]; o = best["off/" t]
				if (!(("off/" t) in best) || o <= 0) continue
				printf "%-12s %14.0f", substr(t, 4), o
				for (q = 1; q <= 4; q++) {
					if ((wc[q] "/" t) in best) {
						pct[q] = 100 * (best[wc[q] "/" t] - o) / o
						printf " %9.3f%%", pct[q]
					} else {
						pct[q] = -1; printf " %10s", "-"
					}
				}
				printf "  %9.2f\n", (pct[2] > 0 ? pct[1] / pct[2] : 0)
				# and on the other vCPU, in % of the job too
				eo = median_of(oth, "off/" t)
				ep[1] = ("on/" t) in best ? 100 * (median_of(oth, "on/" t) - eo) / o : 0
				ep[2] = ("floor/" t) in best ? 100 * (median_of(oth, "floor/" t) - eo) / o : 0
				wl[j] = sprintf("bench-summary-workload %s tsa_pct=%.3f floor_pct=%.3f delayacct_pct=%.3f bpftrace_pct=%.3f tsa_elsewhere_pct=%.3f floor_elsewhere_pct=%.3f",
					substr(t, 4), pct[1], pct[2], pct[3], pct[4], ep[1], ep[2])
			}
		}
		# One line per loop for tools: tsa with the defaults, and calls=0.
		print ""
		for (j = 1; j <= nt; j++) {
			t = ts[j]; o = best["off/" t]; f = best["floor/" t] - o
			split("on calls=0", cf, " ")
			for (q = 1; q <= 2; q++) {
				c = cf[q]
				if (!((c "/" t) in best) || !(("floor/" t) in best)) continue
				a = best[c "/" t] - o
				mo = median("off/" t); ma = median(c "/" t) - mo
				mf = median("floor/" t) - mo
				eo = median_of(oth, "off/" t)
				printf "bench-summary%s %s tsa=%+.0f floor=%+.0f ratio=%.2f locked=%.2f fences=%.2f rdtsc=%.2f irqflags=%.2f lines=%.2f stack_lines=%.2f floor_locked=%.2f floor_fences=%.2f rounds=%d tsa_median=%+.0f floor_median=%+.0f ratio_median=%.2f elsewhere=%+.0f floor_elsewhere=%+.0f\n",
					(c == "on" ? "" : "-calls0"), t, a, f, (f > 0 ? a / f : 0),
					added(c, t, 1), added(c, t, 2), added(c, t, 3),
					added(c, t, 4), added(c, t, 5), added(c, t, 6),
					added("floor", t, 1), added("floor", t, 2),
					rounds[c "/" t], ma, mf, (mf > 0 ? ma / mf : 0),
					median_of(oth, c "/" t) - eo,
					median_of(oth, "floor/" t) - eo
			}
		}
		for (j = 1; j <= nw; j++) if (j in wl) print wl[j]
	}'
grep '^bench-summary memory ' "$out/guest.txt" || true
grep '^bench-summary self ' "$out/guest.txt" || true

[ -n "$profile" ] || exit 0
# The profile: bracket K of profile.txt is the K-th "meter" line. Symbols:
# the guest kernel's (nokaslr) and the modules' addresses per config.
# Addresses are 16 hex digits: sorted as strings, one merge maps them.
tr -d '\0' <"$out/kallsyms.img" | awk 'NF == 3 && $2 ~ /^[tTwW]$/ { print $1, "S", $3 }' >"$out/kernel.syms"
[ -s "$out/kernel.syms" ] || tsa_die "the guest wrote no kernel symbols to map the profile with"
prof=$out/profile.txt
grep '^meter ' "$out/guest.txt" | awk '{ print NR, $2, $3, $4 }' >"$out/brackets.txt"
: >"$out/persym.txt"
while read -r k c t n; do
	{
		cat "$out/kernel.syms"
		echo "ffffffffc0000000 S [other-modules]"
		awk -v c="$c" '$1 == "syms" && $2 == c { print $3, "S", "[mod]" $4 }' "$out/guest.txt"
		awk -v k="$k" '$1 == "bracket" { on = ($2 == k); next } on { print $1, "X", $2, $3 + 0 }' "$prof"
	} | LC_ALL=C sort -k1,1 -k2,2 | awk -v c="$c" -v t="$t" -v n="$n" '
		$2 == "S" { sym = $3; next }
		{ s = substr($1, 1, 1) == "f" ? (sym == "" ? "[kernel]" : sym) : "[user]"
		  sum[s] += $3; lk[s] += $4 }
		END { for (s in sum) printf "%s %s %s %.3f %.3f\n", t, c, s, sum[s] / n, lk[s] / n }' >>"$out/persym.txt"
done <"$out/brackets.txt"
# Per operation of loop $1, by function, column $2 of persym.txt (4:
# instructions, 5: locked ones): the functions tsa (on) or the floor
# changes by at least $3 against off, the largest change first.
by_function() {
	awk -v t="$1" -v col="$2" -v min="$3" '$1 == t { v[$3, $2] = $col; syms[$3] = 1 }
		END {
			printf "%12.0f %-36s %10s %10s %10s %10s\n", 1e11, t, "off", "floor", "on", "syscalls=0"
			for (s in syms) {
				d = v[s, "on"] - v[s, "off"]; f = v[s, "floor"] - v[s, "off"]
				to += v[s, "off"]; tf += v[s, "floor"]; tn += v[s, "on"]; tz += v[s, "syscalls=0"]
				if (s ~ /^\[mod\]/) {
					mf += v[s, "floor"]; mn += v[s, "on"]; mz += v[s, "syscalls=0"]
				}
				if (d >= min || d <= -min || f >= min || f <= -min)
					printf "%12.2f %-36s %10.2f %10.2f %10.2f %10.2f\n", (d < 0 ? -d : d), s,
						v[s, "off"], v[s, "floor"], v[s, "on"], v[s, "syscalls=0"]
			}
			printf "%12.0f %-36s %10.2f %10.2f %10.2f %10.2f\n", 1e10, "total", to, tf, tn, tz
			printf "%12.0f %-36s %10.2f %10.2f %10.2f %10.2f\n", 1e9, "the module'\''s own code ([mod])", 0, mf, mn, mz
		}' "$out/persym.txt" | sort -k1,1nr | awk 'NR <= 32' | cut -c14-
	echo
}

# Only the loops this run measured, each by by_function "$@".
tests=$(awk '{ print $1 }' "$out/persym.txt" | sort -u)
each_loop() {
	local t

	for t in pipe syscall futex fault fork thread; do
		if grep -qx "$t" <<<"$tests"; then by_function "$t" "$@"; fi
	done
}

echo
echo "Where the instructions go: per operation, by function (one round; the"
echo "functions whose count tsa (on) or the floor changes most against off;"
echo "the kernel's own counts vary by some hundreds from run to run: timer"
echo "ticks and other work that falls inside the brackets; [mod]: module code)"
each_loop 4 5
echo "Where the locked instructions go (lock prefix, xchg with memory): per"
echo "operation, by function, where tsa (on) or the floor changes the count"
echo "by at least 0.25 against off (same round)"
each_loop 5 0.25
