#!/usr/bin/env bash
# run.sh -i INVENTORY [--focus REGEX] [--skip REGEX] [--out DIR] [--nodes N] [--timeout DURATION]
#        [--num-nodes N] [--no-import] [--list] [--images-only]
#
# Runs Kubernetes Conformance specs against the cluster of a kcluster inventory:
#   1. e2e.test, kubectl and ginkgo for the cluster's kubernetesVersion (build-e2e-test.sh,
#      cached by version under /var/cache/kcluster/conformance/e2e-test/VERSION);
#   2. the test images it needs (build-test-images.sh, cached under .../conformance/images/VERSION);
#   3. imports those images on every host of the inventory over SSH (`ctr -n k8s.io images import`,
#      or `docker load` with containerRuntime docker), skipping those already there;
#      When the inventory's cluster.registries gives kcluster.local a plain-HTTP mirror on an
#      address of this machine, serves the images there too for the run (registry.mjs): the specs
#      that pull with imagePullPolicy Always need a registry;
#   4. runs e2e.test with the admin kubeconfig, --provider=skeleton, KUBE_TEST_REPO_LIST naming
#      the local images, JUnit into OUT/report, the whole log in OUT/e2e.log;
#   5. prints one summary line (passed, failed, skipped, seconds) and exits 1 if a spec failed.
#
# Without --focus: the specs listed in selection.txt beside this script (CI's focused selection).
# --focus '\[Conformance\]' runs every Conformance spec (with the default --skip, not the
# [Serial] and [Disruptive] ones: pass --skip '\[Disruptive\]' and --nodes 1 for those).
# --nodes N runs N specs at once through the ginkgo CLI (the [Serial] ones then wait for the rest).
# --num-nodes N tells e2e.test the cluster's schedulable nodes: without it, specs that need
# several nodes count them only in ginkgo's first process, and skip ("Requires at least 2 nodes
# (not -1)") in the others.
# --list prints the specs the focus and skip select (a ginkgo dry run) and stops.
# --images-only builds the test images and imports them on the hosts, then stops.
# OUT defaults to /tmp/kcluster-conformance/<cluster>-<UTC time>.
. "$(dirname "$0")/lib.sh"

usage() { sed -n '2,3p' "$0" | sed 's/^# //' >&2; exit 2; }
inventory='' focus='' skip='\[Serial\]|\[Disruptive\]' out='' nodes=1 timeout=3h import=1 list='' images_only='' num_nodes=''
while [ $# -gt 0 ]; do
  case $1 in
    -i|--inventory) inventory=${2:?}; shift 2 ;;
    --focus) focus=${2?}; shift 2 ;;
    --skip) skip=${2?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --nodes) nodes=${2:?}; shift 2 ;;
    --num-nodes) num_nodes=${2:?}; shift 2 ;;
    --timeout) timeout=${2:?}; shift 2 ;;
    --no-import) import=; shift ;;
    --list) list=1; shift ;;
    --images-only) images_only=1; shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$inventory" ] || usage
[ -f "$inventory" ] || fail "inventory $inventory: no such file"
[[ $nodes =~ ^[1-9][0-9]*$ ]] || fail "--nodes wants a positive number"
[ -z "$num_nodes" ] || [[ $num_nodes =~ ^[1-9][0-9]*$ ]] || fail "--num-nodes wants a positive number"
command -v node >/dev/null || fail "needs node (kcluster's CLI)"
command -v ssh >/dev/null || fail "needs ssh"
inventory=$(cd "$(dirname "$inventory")" && pwd)/$(basename "$inventory")
kc() { node "$REPO_ROOT/bin/kcluster.js" "$@"; }

# ---------------------------------------------------------------- the cluster, from the inventory
errors=$(mktemp) registry_pid=''
trap 'rm -f "$errors"; [ -z "$registry_pid" ] || kill "$registry_pid" 2>/dev/null' EXIT
config=$(kc config -i "$inventory" --resolved -o json 2>"$errors") || fail "kcluster config -i $inventory failed: $(cat "$errors")"
json() { node -e 'const c=JSON.parse(require("fs").readFileSync(0,"utf8")); const f=new Function("c", "return ("+process.argv[1]+")"); const v=f(c); console.log(Array.isArray(v)?v.join("\n"):String(v??""))' "$1" <<< "$config"; }
version=$(json 'c.cluster.kubernetesVersion')
cluster=$(json 'c.cluster.name')
runtime=$(json 'c.cluster.containerRuntime ?? "containerd"')
dns_domain=$(json 'c.cluster.clusterDomain ?? "cluster.local"')
check_version "$version"
[ -n "$out" ] || out=${TMPDIR:-/tmp}/kcluster-conformance/$cluster-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"; out=$(cd "$out" && pwd)
note "cluster $cluster, Kubernetes $version, runtime $runtime; results in $out"

# The focus: selection.txt's specs, each escaped and followed by its [tags], one of them [Conformance]
# ("DNS should provide DNS for the cluster" also names a [Provider:gce] spec).
if [ -z "$focus" ]; then
  focus=$(grep -v '^[[:space:]]*\(#\|$\)' "$CONFORMANCE_DIR/selection.txt" \
    | sed -e 's/[][\\.+*?(){}|^$]/\\&/g' -e 's/$/( \\[[^\\]]+\\])* \\[Conformance\\]/' | paste -sd'|')
  selected=$(grep -vc '^[[:space:]]*\(#\|$\)' "$CONFORMANCE_DIR/selection.txt")
  note "focus: the $selected specs of selection.txt"
fi

# ---------------------------------------------------------------- e2e.test and the images
t0=$SECONDS
images=$CONFORMANCE_CACHE/images/$version
"$CONFORMANCE_DIR/build-test-images.sh" "$version" "$images"
export KUBE_TEST_REPO_LIST=$images/repo-list.yaml
cp "$KUBE_TEST_REPO_LIST" "$images/images.txt" "$out/"
if [ -z "$images_only" ]; then
  "$CONFORMANCE_DIR/build-e2e-test.sh" "$version" "$out/bin" >/dev/null
fi
note "e2e.test and the test images ready in $((SECONDS - t0)) s"

framework_args=(--kubeconfig="$out/admin.conf" --provider=skeleton --kubectl-path="$out/bin/kubectl"
  --dns-domain="$dns_domain" --report-dir="$out/report" ${num_nodes:+--num-nodes="$num_nodes"})
if [ -n "$list" ]; then
  touch "$out/admin.conf"
  { "$out/bin/e2e.test" "${framework_args[@]}" --ginkgo.dry-run --ginkgo.v --ginkgo.no-color \
      --ginkgo.focus="$focus" --ginkgo.skip="$skip" 2>&1 || true; } | grep '^\[sig-' | sed -E 's/ \[sig-[^]]*\]$//'
  exit 0
fi

# ---------------------------------------------------------------- import the images on every host
# Host fields, separated by \x1f (not a tab: read would merge empty fields): name address port user keyFile agent become passwordEnv
#   bastionAddress bastionPort bastionUser bastionKeyFile
hosts=$(json 'c.hosts.map(h => [h.name, h.ssh.address, h.ssh.port, h.ssh.user, h.ssh.keyFile ?? "", h.ssh.agent ? 1 : "",
  h.become?.enabled ? 1 : "", h.become?.passwordEnv ?? "", h.bastion?.address ?? "", h.bastion?.port ?? "",
  h.bastion?.user ?? "", h.bastion?.keyFile ?? ""].join("\x1f"))')
known=()
for f in "$HOME/.ssh/known_hosts" "$(json 'c.ssh.knownHostsFile ?? ""')" "$(json 'c.stateDir')/known_hosts"; do
  [ -n "$f" ] && [ -f "$f" ] && known+=("$f")
done
[ ${#known[@]} -gt 0 ] || fail "no known_hosts file for the hosts' keys (run kcluster apply or kcluster trust first)"
base_opts=(-o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5 -o ServerAliveCountMax=3
  -o StrictHostKeyChecking=yes -o "UserKnownHostsFile=${known[*]}" -o LogLevel=ERROR)

# on_host NAME COMMAND [< input]: runs COMMAND as root on host NAME, over SSH as kcluster does
# (user, port, key, bastion, become with sudo), stdin passed on.
on_host() {
  local want=$1 cmd=$2 name address port user key agent become pwenv baddr bport buser bkey opts proxy
  while IFS=$'\x1f' read -r name address port user key agent become pwenv baddr bport buser bkey; do
    [ "$name" = "$want" ] && break
  done <<< "$hosts"
  [ "$name" = "$want" ] || fail "internal: no host $want"
  opts=("${base_opts[@]}" -p "$port")
  [ -n "$agent" ] || [ -z "$key" ] || opts+=(-i "$key" -o IdentitiesOnly=yes)
  if [ -n "$baddr" ]; then
    proxy=$(printf '%q ' ssh "${base_opts[@]}" -p "$bport")
    [ -z "$bkey" ] || proxy+=$(printf '%q ' -i "$bkey" -o IdentitiesOnly=yes)
    opts+=(-o "ProxyCommand=$proxy-W %h:%p $buser@$baddr")
  fi
  cmd="export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:\$PATH; $cmd"
  if [ -z "$become" ] || [ "$user" = root ]; then
    ssh "${opts[@]}" "$user@$address" "sh -c $(printf %q "$cmd")"
  elif [ -z "$pwenv" ]; then
    ssh "${opts[@]}" "$user@$address" "sudo -n sh -c $(printf %q "$cmd")"
  else
    [ -n "${!pwenv:-}" ] || fail "host $name: become needs the sudo password in \$$pwenv"
    # sudo -S reads the password byte by byte up to the newline: the rest of stdin is the command's.
    { printf '%s\n' "${!pwenv}"; cat; } | ssh "${opts[@]}" "$user@$address" "sudo -k -S -p '' sh -c $(printf %q "$cmd")"
  fi
}

if [ -n "$import" ]; then
  t0=$SECONDS
  while IFS=$'\x1f' read -r host _; do
    case $runtime in
      containerd) present=$(on_host "$host" "ctr -n k8s.io images ls | awk 'NR > 1 { print \$1, \$3 }'" < /dev/null) \
        || fail "host $host: cannot list its images over SSH (ctr -n k8s.io images ls)" ;;
      docker) present= ;;
      *) fail "containerRuntime $runtime: unknown" ;;
    esac
    n=0
    while read -r ref file digest; do
      grep -qxF "$ref $digest" <<< "$present" && continue
      case $runtime in
        containerd) on_host "$host" "ctr -n k8s.io images import - >/dev/null" < "$images/$file" ;;
        docker) on_host "$host" "docker load >/dev/null" < "$images/$file" ;;
      esac || fail "host $host: importing $ref failed"
      n=$((n + 1))
    done < "$images/images.txt"
    note "host $host: $n images imported"
  done <<< "$hosts"
  note "images on all hosts in $((SECONDS - t0)) s"
fi

[ -z "$images_only" ] || exit 0
kc kubeconfig -i "$inventory" --file "$out/admin.conf" >/dev/null || fail "kcluster kubeconfig -i $inventory failed"

# ---------------------------------------------------------------- the registry mirror, if the cluster names one
# Specs that pull with imagePullPolicy Always (an image volume, pod certificates) need a registry:
# when the inventory's cluster.registries gives kcluster.local a plain-HTTP mirror on an address of
# this machine, the test images are served there (registry.mjs) for the run.
mirror=$(json '(c.cluster.registries?.["kcluster.local"]?.mirrors ?? []).find((m) => /^http:\/\/[0-9.]+:[0-9]+\/?$/.test(m)) ?? ""')
if [ -n "$mirror" ]; then
  hostport=${mirror#http://}; hostport=${hostport%/}
  node "$CONFORMANCE_DIR/registry.mjs" "$images" "${hostport%:*}" "${hostport##*:}" > "$out/registry.log" 2>&1 &
  registry_pid=$!
  for _ in $(seq 1 50); do grep -q '^registry: listening' "$out/registry.log" && break; kill -0 "$registry_pid" 2>/dev/null || break; sleep 0.2; done
  grep -q '^registry: listening' "$out/registry.log" || fail "the registry mirror $mirror did not start: $(tail -n 3 "$out/registry.log")"
  note "$(head -n 1 "$out/registry.log") for cluster.registries' kcluster.local mirror"
fi

# ---------------------------------------------------------------- run
rm -rf "$out/report"; mkdir -p "$out/report"
note "running e2e.test (log: $out/e2e.log)"
t0=$SECONDS
set +e
if [ "$nodes" -gt 1 ]; then
  "$out/bin/ginkgo" --nodes="$nodes" --focus="$focus" --skip="$skip" --timeout="$timeout" --no-color \
    "$out/bin/e2e.test" -- "${framework_args[@]}" > "$out/e2e.log" 2>&1
else
  "$out/bin/e2e.test" "${framework_args[@]}" --ginkgo.focus="$focus" --ginkgo.skip="$skip" \
    --ginkgo.timeout="$timeout" --ginkgo.no-color --ginkgo.v > "$out/e2e.log" 2>&1
fi
rc=$?
set -e
seconds=$((SECONDS - t0))

# ---------------------------------------------------------------- summary from the JUnit file
junit=$(ls "$out"/report/junit*.xml 2>/dev/null | head -n 1)
[ -n "$junit" ] || { tail -n 30 "$out/e2e.log" >&2; fail "e2e.test exited $rc without a JUnit report (log: $out/e2e.log)"; }
summary=$(node - "$junit" <<'EOF'
const xml = require('fs').readFileSync(process.argv[2], 'utf8');
const cases = [...xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)];
let passed = 0, failed = 0, skipped = 0, filtered = 0; const failures = [];
const attr = (s, n) => (s.match(new RegExp(`\\b${n}="([^"]*)"`)) || [])[1];
const unescape = (s) => s.replace(/&#34;|&quot;/g, '"').replace(/&#39;|&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
for (const [, a, , body = ''] of cases) {
  const name = unescape(attr(a, 'name') || '');
  // Specs are "[It] <full text>"; the rest are suite nodes ([SynchronizedBeforeSuite], ...): only their failures count.
  if (!name.startsWith('[It] ')) { if (/<(failure|error)\b/.test(body)) { failed++; failures.push(name); } continue; }
  const status = attr(a, 'status');
  if (/<(failure|error)\b/.test(body) || status === 'failed' || status === 'panicked' || status === 'timedout' || status === 'interrupted') { failed++; failures.push(name); }
  else if (/<skipped\b/.test(body) || status === 'skipped' || status === 'pending') {
    const m = (body.match(/<skipped\b[^>]*message="([^"]*)"/) || [])[1] || '';
    if (/^skipped$|^$/.test(m)) filtered++; else skipped++;
  } else passed++;
}
console.log(`${passed} ${failed} ${skipped} ${filtered}`);
for (const f of failures) console.log(`FAILED ${f}`);
EOF
) || fail "cannot read $junit"
read -r passed failed skipped filtered <<< "$(head -n 1 <<< "$summary")"
tail -n +2 <<< "$summary" | sed 's/^/  /' >&2
line="conformance $version ($cluster): $passed passed, $failed failed, $skipped skipped, ${seconds} s (JUnit $junit; $filtered specs not selected)"
echo "$line" | tee "$out/summary.txt"
[ "$failed" = 0 ] && [ "$rc" = 0 ] && exit 0
[ "$failed" != 0 ] || note "e2e.test exited $rc (see $out/e2e.log)"
exit 1
