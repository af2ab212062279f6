#!/usr/bin/env bash
# The whole test suite, as CI runs it (`npm test`, called by .ci/run):
#   1. host packages (apt), a fresh build, a strict type-check of sources and tests, and the
#      linter and formatter check (npm run lint);
#   2. unit + engine tests;
#   3. lab tests (each brings up and tears down its own lab hosts) and
#   4. integration tests over real SSH on two 3-host test labs brought up here, both
#      alongside 2 and the bundle of 5;
#   5. the offline bundle (built from source, cached) and real clusters installed from it (three
#      e2e files at a time, see vitest.config.ts), with kube-bench (the CIS benchmark) run on them.
# Ends with one line "tests: N passed, N failed, N skipped" and a non-zero exit on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SUITE_START=$(date +%s%3N)
[ "$(id -u)" = 0 ] || { echo "npm test: the suite needs root (lab hosts are systemd-nspawn containers); run it with sudo" >&2; exit 2; }

bash src/lab/scripts/install-host-deps.sh || exit 1
[ -d node_modules ] || npm ci || exit 1
npm run --silent build || exit 1
npm run --silent typecheck || exit 1
# ESLint and Prettier's check (npm run format rewrites what the check refuses).
npm run --silent lint || exit 1

RESULTS=$(mktemp -d /tmp/kcluster-test-results.XXXXXX)
status=0
# Each stage's wall clock, printed at the end (test/summarize-results.mjs --stages).
STAGE_START=$SUITE_START
stage_done() { # name: the time since the last stage ended
  local now; now=$(date +%s%3N)
  printf '%s\t%s\n' "$1" "$((now - STAGE_START))" >> "$RESULTS/stages.tsv"
  STAGE_START=$now
}
stage_done "install, build, typecheck, lint"
run_project() { # report project [vitest arguments...]: its exit status
  local report=$1 project=$2; shift 2
  echo "== vitest project: $project ($report)"
  npx vitest run --project "$project" --reporter=default --reporter=json \
    --outputFile.json="$RESULTS/$report.json" "$@"
}

# 3-4. Lab and integration tests spend their time waiting on SSH, timeouts and hosts, not on the
# CPU, so they run alongside the unit tests and the bundle (a build from source when cold), as
# three jobs: the lab tests, and the integration tests split over two test labs (the ones that
# freeze hosts and cut links on one, the rest on the other). Each job's output is printed as one
# block when it ends, and its duration as a stage marked "(alongside)". The end-to-end tests
# wait for them: those are CPU-bound.
integration_on() { # lab subnet report [test files...]: brings the lab up, runs, brings it down
  local lab=$1 subnet=$2 report=$3 code=0; shift 3
  node bin/kcluster.js lab down --name "$lab" >/dev/null 2>&1 || true
  if node bin/kcluster.js lab up --name "$lab" --hosts 3 --subnet "$subnet"; then
    KCLUSTER_TEST_LAB="${HOME}/.kcluster/labs/$lab" KCLUSTER_ROOT="$ROOT" run_project "$report" integration "$@" || code=1
  else
    echo "npm test: could not bring up the test lab $lab; $report tests not run" >&2
    code=1
  fi
  node bin/kcluster.js lab down --name "$lab" || code=1
  return $code
}
side_jobs=()
alongside_log() { printf '%s/alongside-%s.log' "$RESULTS" "${1// /-}"; } # name: its job's log
alongside() { # name command...: the command in the background, its output in a log
  local name=$1; shift
  (
    start=$(date +%s%3N)
    "$@"; code=$?
    printf '%s (alongside)\t%s\n' "$name" "$(($(date +%s%3N) - start))" >> "$RESULTS/stages-alongside.tsv"
    exit $code
  ) > "$(alongside_log "$name")" 2>&1 &
  side_jobs+=("$!:$name")
}
FAULT_TESTS=(test/integration/host-faults.test.ts test/integration/lost-link.test.ts test/integration/host-failures.test.ts)
mapfile -t OTHER_INTEGRATION_TESTS < <(find test/integration -name '*.test.ts' -not -path 'test/integration/lab/*' | sort | grep -vxF -f <(printf '%s\n' "${FAULT_TESTS[@]}"))
alongside "lab tests" run_project lab lab
alongside "integration tests: host faults" integration_on kctest 10.231.0.0/24 integration-faults "${FAULT_TESTS[@]}"
alongside "integration tests: the rest" integration_on kctestb 10.231.8.0/24 integration "${OTHER_INTEGRATION_TESTS[@]}"

run_project unit unit || status=1
stage_done "unit tests"

# 5. the offline bundle built from source (cached in /var/cache/kcluster/build), verified, and a
#    real cluster installed from it on privileged lab hosts.
# The two newest releases kcluster knows (the upgrade test starts from the older one) and the busybox image the tests run.
# kube-bench, which the e2e suite runs on its clusters (built once through the Go module proxy, cached).
# Both builds (from source when cold) run niced: the integration tests alongside time SSH
# keepalives and host faults, and must not wait behind the compiler.
echo "== kube-bench: test/cis/build-kube-bench.sh"
nice -n 10 bash test/cis/build-kube-bench.sh || status=1
stage_done "kube-bench build"
echo "== offline bundle: kcluster bundle build"
if BUNDLE=$(nice -n 10 node bin/kcluster.js bundle build --upgrade-pair --every-component --test-tools | tail -n 1) && node bin/kcluster.js artifacts verify --bundle "$BUNDLE"; then
  stage_done "offline bundle build and verify"
else
  echo "npm test: the offline bundle could not be built or verified; end-to-end tests not run" >&2
  BUNDLE=''
  status=1
fi

for job in "${side_jobs[@]}"; do
  wait "${job%%:*}" || status=1
  echo "== ${job#*:} (run alongside the stages above; its output follows)"
  cat "$(alongside_log "${job#*:}")"
done
stage_done "waiting for the lab and integration tests"
[ -z "$BUNDLE" ] || { KCLUSTER_TEST_BUNDLE="$BUNDLE" run_project e2e e2e || status=1; stage_done "e2e tests"; }

cat "$RESULTS/stages-alongside.tsv" >> "$RESULTS/stages.tsv" 2>/dev/null
printf 'whole suite\t%s\n' "$(($(date +%s%3N) - SUITE_START))" >> "$RESULTS/stages.tsv"
node test/summarize-results.mjs --stages "$RESULTS/stages.tsv" "$RESULTS"/*.json || status=1
rm -rf "$RESULTS"
exit $status
