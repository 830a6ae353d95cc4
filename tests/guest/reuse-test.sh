#!/bin/bash
# In a guest (PREEMPT_RT, tsa loaded): no new process joins a dead
# process's group (tsa-partest reuse). A process whose threads wait in
# the late queue, its group pinned for them (on PREEMPT_RT the fork hook
# only takes records from its pool: 300 threads at once, with every CPU
# held, empty it), exits and is reaped before the late work runs; then
# 100 new processes, forked one at a time on that CPU, may be given its
# signal_struct's memory when the late work drops the last of its
# threads. Each must start a group of its own.
#
#   reuse-test.sh PARTEST [ROUNDS]
partest=$1 rounds=${2:-2}
rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
echo -1 >/proc/sys/kernel/sched_rt_runtime_us
for i in $(seq "$rounds"); do
	res=$("$partest" reuse 300 2>&1)
	read -r _ children _ joined _ untracked _ walks <<<"$(tail -n 1 <<<"$res")"
	if [[ ${children:-0} -ge 90 && ${joined:-1} == 0 && ${untracked:-1} == 0 ]]; then
		echo "ok $i - no new process joins a dead process's group, round $i ($res)"
	else
		echo "not ok $i - no new process joins a dead process's group, round $i (expected >= 90 children, 0 joined, 0 untracked; saw: $(tr '\n' ' ' <<<"$res"))"
	fi
done
echo "$rt" >/proc/sys/kernel/sched_rt_runtime_us
