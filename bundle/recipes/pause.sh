#!/usr/bin/env bash
# The pause (sandbox) container, from the C source the kubernetes module ships; kcluster gives
# its path as KCLUSTER_PAUSE_SOURCE (the kubernetes stage's .pause.c) or, when Kubernetes itself
# is downloaded from its releases, the module to read it from as KCLUSTER_PAUSE_MODULE.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
if [ -n "${KCLUSTER_PAUSE_MODULE:-}" ]; then
  use_go
  verified_gomod "$KCLUSTER_PAUSE_MODULE" >/dev/null
  source_file=$(module_dir "$KCLUSTER_PAUSE_MODULE")/build/pause/linux/pause.c
else
  source_file=${KCLUSTER_PAUSE_SOURCE:?kcluster bundle build sets KCLUSTER_PAUSE_SOURCE or KCLUSTER_PAUSE_MODULE}
fi
use_target_cc
"$CC" -Os -Wall -Werror -static -DVERSION="v$v-kcluster" -o "$out/pause" "$source_file"
"$STRIP" "$out/pause"
run_target "$out/pause" -v 2>&1 | grep -F "$v"
