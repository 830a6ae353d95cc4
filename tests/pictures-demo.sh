#!/bin/bash
# The README's picture (docs/pictures-demo.png): a recording made in a
# 6.1 guest (tests/guest/record-demo.sh: a thread that spins, sleeps and
# waits for a lock, 4 s each, recorded at 1 s), drawn on the host by
# tsa-prstat --svg and rsvg-convert. Not part of make check.
#
#   tests/pictures-demo.sh [OUTDIR]   (default docs/; also writes the
#                                     recording, OUTDIR/pictures-demo.rec/)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
outdir=${1:-$repo/docs}
out=$repo/tests/out/prstat
mkdir -p "$out"
TSA_PROG=pictures-demo
# shellcheck source=tests/lib.sh
. "$repo/tests/lib.sh"
tsa_pin_kernels
make -C "$repo" -s module userspace WERROR=y
gcc -O2 -Wall -Wextra -Werror -pthread -o "$out/tsa-ptest" \
	"$repo/tests/guest/tsa-ptest.c" "$repo/tests/guest/tsa-read.c" -lm
"$repo/tests/guest-run" --kernel "$TSA_KERNEL" --module "$repo/tsa.ko" \
	--smp 2 --timeout 300 -- bash "$repo/tests/guest/record-demo.sh" \
	"$repo/userspace/tsa-prstat" "$out/tsa-ptest" >"$out/demo.log"
rec=$outdir/pictures-demo.rec
rm -rf "$rec"
mkdir -p "$rec"
sed -n '/^-----BEGIN RECORDING-----/,/^-----END RECORDING-----/p' \
	"$out/demo.log" | sed '1d;$d' | tr -d '\r' | base64 -d | tar -C "$rec" -xzf -
pid=$(TZ=UTC "$repo/userspace/tsa-prstat" --replay "$rec" --summary -L --json |
	python3 -c 'import json, sys
pids = [json.loads(l)["pid"] for l in sys.stdin if json.loads(l).get("comm") == "phases"]
print(pids[0] if pids else 0)')
# From the directory, so that the picture's title is the recording's name.
(cd "$outdir" && TZ=UTC "$repo/userspace/tsa-prstat" --replay pictures-demo.rec \
	-L -p "$pid" --svg pictures-demo.svg &&
	rsvg-convert pictures-demo.svg -o pictures-demo.png)
echo "pictures-demo: $outdir/pictures-demo.png (process $pid)"
