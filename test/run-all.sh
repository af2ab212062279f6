#!/usr/bin/env bash
# The whole test suite, as CI runs it (`npm test`, called by .ci/run):
#   1. host packages (apt), a fresh build, a strict type-check of sources and tests, and the
#      linter and formatter check (npm run lint);
#   2. unit + engine tests;
#   3. lab tests (each brings up and tears down its own lab hosts) and
#   4. integration tests over real SSH on a shared 3-host test lab brought up here, both
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
run_project() { # name [extra env...]: its exit status
  local project=$1; shift
  echo "== vitest project: $project"
  env "$@" npx vitest run --project "$project" --reporter=default --reporter=json \
    --outputFile.json="$RESULTS/$project.json"
}

# 3-4. Lab and integration tests spend their time waiting on SSH, timeouts and hosts, not on the
# CPU, so they run alongside the unit tests and the bundle (a build from source when cold), in
# a job of their own with their own clock; their output is printed as one block when they end.
# The end-to-end tests wait for them: those are CPU-bound.
side_tests() {
  local side_status=0 side_start now
  side_start=$(date +%s%3N)
  side_stage() { now=$(date +%s%3N); printf '%s (alongside)\t%s\n' "$1" "$((now - side_start))" >> "$RESULTS/stages-alongside.tsv"; side_start=$now; }
  run_project lab || side_status=1
  side_stage "lab tests"
  local test_lab=kctest
  node bin/kcluster.js lab down --name "$test_lab" >/dev/null 2>&1 || true
  if node bin/kcluster.js lab up --name "$test_lab" --hosts 3; then
    side_stage "test lab up"
    run_project integration KCLUSTER_TEST_LAB="${HOME}/.kcluster/labs/$test_lab" KCLUSTER_ROOT="$ROOT" || side_status=1
    side_stage "integration tests"
  else
    echo "npm test: could not bring up the test lab; integration tests not run" >&2
    side_status=1
  fi
  node bin/kcluster.js lab down --name "$test_lab" || side_status=1
  side_stage "test lab down"
  return $side_status
}
side_tests > "$RESULTS/alongside.log" 2>&1 &
side_pid=$!

run_project unit || status=1
stage_done "unit tests"

# 5. the offline bundle built from source (cached in /var/cache/kcluster/build), verified, and a
#    real cluster installed from it on privileged lab hosts.
# The two newest releases kcluster knows (the upgrade test starts from the older one) and the busybox image the tests run.
# kube-bench, which the e2e suite runs on its clusters (built once through the Go module proxy, cached).
echo "== kube-bench: test/cis/build-kube-bench.sh"
bash test/cis/build-kube-bench.sh || status=1
stage_done "kube-bench build"
echo "== offline bundle: kcluster bundle build"
BUNDLE=''
if BUNDLE=$(node bin/kcluster.js bundle build --upgrade-pair --test-tools | tail -n 1) && node bin/kcluster.js artifacts verify --bundle "$BUNDLE"; then
  stage_done "offline bundle build and verify"
else
  echo "npm test: the offline bundle could not be built or verified; end-to-end tests not run" >&2
  BUNDLE=''
  status=1
fi

echo "== lab and integration tests (run alongside the stages above; their output follows)"
wait "$side_pid" || status=1
cat "$RESULTS/alongside.log"
stage_done "waiting for the lab and integration tests"
[ -z "$BUNDLE" ] || { run_project e2e KCLUSTER_TEST_BUNDLE="$BUNDLE" || status=1; stage_done "e2e tests"; }

cat "$RESULTS/stages-alongside.tsv" >> "$RESULTS/stages.tsv" 2>/dev/null
printf 'whole suite\t%s\n' "$(($(date +%s%3N) - SUITE_START))" >> "$RESULTS/stages.tsv"
node test/summarize-results.mjs --stages "$RESULTS/stages.tsv" "$RESULTS"/*.json || status=1
rm -rf "$RESULTS"
exit $status
