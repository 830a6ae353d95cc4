#!/bin/bash
# Guest side of tests/pictures-demo.sh: the recorder at 1 s while
# tsa-ptest's "phases" thread spins, sleeps and waits for a lock (4 s
# each), then the recording on stdout as base64 between two marker lines.
#
#   record-demo.sh TSA_PRSTAT TSA_PTEST
set -eu
prstat=$1 ptest=$2
rec=$(mktemp -d)/rec
"$prstat" --record "$rec" --interval 1 2>/dev/null &
rpid=$!
sleep 1.5
"$ptest" phases 4 >/dev/null &
ppid=$!
# The recording ends in the lock phase: a window's lines are those
# alive at its end, as --summary's.
sleep 11.5
kill -TERM "$rpid"
wait "$rpid"
wait "$ppid"
echo "-----BEGIN RECORDING-----"
tar -C "$rec" -czf - . | base64
echo "-----END RECORDING-----"
