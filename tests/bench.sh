#!/bin/bash
# make bench: overhead benchmarks in one guest boot (see tests/guest/bench.sh):
# time ratios, and guest instructions per operation counted by a QEMU
# plugin (tests/bench/insn-meter.c) for the same loops.
set -euo pipefail
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
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$out/insn-meter.so" tests/bench/insn-meter.c
# The floor module (kbuild writes its products beside the source, as for tsa).
make -s -C "$KDIR" M="$PWD/tests/bench/floor" modules >"$out/floor.log" 2>&1 ||
	{ cat "$out/floor.log"; exit 1; }
echo "bench: kernel $TSA_KERNEL, QEMU TCG single-threaded, tsc=reliable, instruction meter $out/insn-meter.so"
# guest-run boots with tsc=reliable (the TSC clock, as on real machines;
# tsa reads the clock at every event) and single-threaded TCG, which the
# bench needs: it loads and unloads modules many times (see tests/guest-run).
GUEST_RUN_QEMU_ARGS="-plugin $PWD/$out/insn-meter.so,out=$PWD/$out/meter.txt" \
	tests/guest-run --kernel "$TSA_KERNEL" --tcg-single --timeout 3600 -- \
	bash tests/guest/bench.sh "$PWD/tsa.ko" "$PWD/tests/bench/floor/tsa_floor.ko" \
	"$PWD/tests/out/tsa-bench" "$PWD/userspace/tsa-prstat" "$PWD/tests/bench/peer.bt" | tee "$out/guest.txt" | grep -v '^meter '

# Instructions per operation: the n-th "meter CONFIG TEST N" line of the
# guest goes with the n-th stop marker (id 2) the plugin saw.
awk '$1 == 2 { print $2, $3 }' "$out/meter.txt" >"$out/stops.txt"
grep '^meter ' "$out/guest.txt" | paste -d' ' - "$out/stops.txt" | awk '
	NF != 6 { bad = 1; exit }
	{ c = $2; t = $3; v = $6 / $4
	  if (!(c in seenc)) { seenc[c] = 1; cs[++nc] = c }
	  if (!(t in seent)) { seent[t] = 1; ts[++nt] = t }
	  k = c "/" t; if (!(k in best) || v < best[k]) best[k] = v
	  if ($5 != 1) vcpu = 1 }
	END {
		if (bad || !nc) { print "bench: the meter lines and the plugin'\''s markers do not pair up"; exit 1 }
		if (vcpu) print "bench: warning: a bracket ended on another vCPU than 1"
		print ""
		print "Guest instructions per operation (least of the rounds; +N: added to the run"
		print "without a module; xF: tsa'\''s added instructions / the floor'\''s)"
		printf "%-13s", "config"
		for (j = 1; j <= nt; j++) printf " %24s", ts[j]
		print ""
		for (i = 1; i <= nc; i++) {
			c = cs[i]; printf "%-13s", c
			for (j = 1; j <= nt; j++) {
				t = ts[j]; b = best[c "/" t]; o = best["off/" t]
				f = best["floor/" t] - o
				if (c == "off") printf " %24.0f", b
				else if (c == "floor" || c == "bpftrace") printf " %10.0f %+8.0f %4s", b, b - o, ""
				else printf " %10.0f %+8.0f %4.1fx", b, b - o, (f > 0 ? (b - o) / f : 0)
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
	}'
