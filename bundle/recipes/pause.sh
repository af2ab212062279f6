#!/usr/bin/env bash
# The pause (sandbox) container, from the C source the kubernetes module ships; kcluster gives
# its path as KCLUSTER_PAUSE_SOURCE (the kubernetes stage's .pause.c).
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
source_file=${KCLUSTER_PAUSE_SOURCE:?kcluster bundle build sets KCLUSTER_PAUSE_SOURCE}
need_packages gcc libc6-dev binutils
gcc -Os -Wall -Werror -static -DVERSION="v$v-kcluster" -o "$out/pause" "$source_file"
strip "$out/pause"
"$out/pause" -v 2>&1 | grep -F "$v"
