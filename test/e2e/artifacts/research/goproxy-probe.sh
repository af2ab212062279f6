#!/bin/bash
# probe.sh module v1 v2 ... : prints available versions; * = go.mod verified by checksum DB
. /var/cache/kcluster-research/env.sh; cd /tmp
m=$1; shift; out=""
for v in "$@"; do
  j=$(go list -m -json $m@$v 2>/dev/null)
  t=$(echo "$j" | sed -n 's/.*"Time": "\(..........\).*/\1/p')
  [ -z "$t" ] && continue
  echo "$j" | grep -q '"GoMod"' && s="*" || s="(nosum)"
  out="$out $v$s[$t]"
done
echo "$m:$out"
