#!/usr/bin/env bash
# Downloads from a lab host: SFTP (Connection.downloadFile, what etcd snapshots use) against the
# base64-over-exec copy it replaced, for files of 16 to 512 MiB: wall time and the controller's
# peak RSS of each, in its own process. Prints a Markdown table.
#   bash bench/download/run.sh [LAB]        (after npm run build; LAB defaults to kctest)
set -euo pipefail
cd "$(dirname "$0")/../.."
LAB=${1:-kctest}
INVENTORY=$HOME/.kcluster/labs/$LAB/inventory.yaml
SSH_CONFIG=$HOME/.kcluster/labs/$LAB/ssh_config
HOST=$(node -e 'const y=require("yaml");const d=y.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(d.hosts[0].name)' "$INVENTORY")
DIR=$(mktemp -d /tmp/kcluster-bench-download.XXXXXX)
trap 'rm -rf "$DIR"; ssh -F "$SSH_CONFIG" "$HOST" "rm -f /var/tmp/kc-bench-download.bin" || true' EXIT
printf '| size | method | wall | peak RSS | sha256 matches |\n|---|---|---|---|---|\n'
for mib in 16 128 512; do
  expected=$(ssh -F "$SSH_CONFIG" "$HOST" "head -c $((mib * 1024 * 1024)) /dev/urandom > /var/tmp/kc-bench-download.bin && sha256sum < /var/tmp/kc-bench-download.bin" | cut -d' ' -f1)
  for method in sftp base64; do
    rm -f "$DIR/out"
    if ! /usr/bin/time -f '%M' -o "$DIR/time" node bench/download/one.mjs "$INVENTORY" "$HOST" /var/tmp/kc-bench-download.bin "$DIR/out" "$method" > "$DIR/result" 2> "$DIR/err"; then
      printf '| %s MiB | %s | failed: %s | %s MB | no |\n' "$mib" "$method" "$(grep -o "ERR_[A-Z_]*\|heap out of memory" "$DIR/err" | head -n 1)" "$(( $(tail -n 1 "$DIR/time" | grep -o '[0-9]*$') / 1024 ))"
      continue
    fi
    ms=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).ms)' "$DIR/result")
    sha=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).sha256)' "$DIR/result")
    rss=$(tail -n 1 "$DIR/time")
    printf '| %s MiB | %s | %s ms | %s MB | %s |\n' "$mib" "$method" "$ms" "$((rss / 1024))" "$([ "$sha" = "$expected" ] && echo yes || echo NO)"
  done
done
