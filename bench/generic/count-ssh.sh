#!/bin/sh
# Ansible's ssh executable for the benchmark: counts every ssh invocation (one round trip or
# more each) in $KCBENCH_SSH_COUNT, then runs the real ssh.
[ -n "${KCBENCH_SSH_COUNT:-}" ] && echo x >> "$KCBENCH_SSH_COUNT"
exec ssh "$@"
