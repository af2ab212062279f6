#!/usr/bin/env bash
# Inventory validation at sizes a large site can have, and hostile shapes that used to take
# minutes: `kcluster validate` wall time and peak RSS for each. Prints a Markdown table.
#   bash bench/validate/run.sh            (after npm run build)
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=$(mktemp -d /tmp/kcluster-bench-validate.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
node bench/validate/generate.mjs "$DIR"
printf '| inventory | size | exit | wall | peak RSS |\n|---|---|---|---|---|\n'
for f in "$DIR"/*.yaml; do
  name=$(basename "$f" .yaml)
  size=$(du -h "$f" | cut -f1)
  set +e
  /usr/bin/time -f '%e %M' -o "$DIR/time" timeout 300 node bin/kcluster.js validate -i "$f" >/dev/null 2>&1
  code=$?
  set -e
  read -r wall rss < <(tail -n 1 "$DIR/time")
  printf '| %s | %s | %s | %s s | %s MB |\n' "$name" "$size" "$code" "$wall" "$((rss / 1024))"
done
