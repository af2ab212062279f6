// End to end, the examples of every `--help` that need hosts, run as they are written (issue 44:
// examples that failed as written), in a folder holding the inventory.yaml they name, on a lab of
// 1 control plane (cp1) and 2 workers (w1, w3) named as the examples name them: each exits 0 (a
// --check one 0 or 3, changes found) in the order an operator would type them. An example whose value only a run makes (a run id, a
// log file, a scheduled snapshot's name) runs with that value filled in, said per example. The
// examples that run elsewhere or not at all are listed with the reason, and every example of
// HELP_EXAMPLES is in one list or another (help-examples-run.test.ts runs the host-free ones;
// help-examples-parse.test.ts parses all of them against the CLI's definitions).
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { HELP_EXAMPLES } from '../../src/cli/help-examples.js';
import { sshTo, useE2eLab } from './support/e2e-support.js';

const NAME = 'kcehelp';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const ssh = sshTo(labDir);
/** The examples' host names, for the lab's hosts in order. */
const RENAMED: Readonly<Record<string, string>> = { [`${NAME}1`]: 'cp1', [`${NAME}2`]: 'w1', [`${NAME}3`]: 'w3' };
const folder = mkdtempSync(join(tmpdir(), 'kc-help-examples-'));
const stateDir = join(folder, 'state');

useE2eLab(NAME, ['--hosts', '3', '--subnet', '10.231.14.0/24']);

/** `kcluster` on PATH is the built CLI, as an installed package would put it there. */
function writeBinFolder(): string {
  const bin = join(folder, '.bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'kcluster'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(resolve(import.meta.dirname, '../../bin/kcluster.js'))} "$@"\n`,
  );
  chmodSync(join(bin, 'kcluster'), 0o755);
  return bin;
}

const bin = writeBinFolder();

/** The example as an operator types it, in the folder: a shell line (pipes and redirects kept). */
function typed(line: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    execFile(
      'bash',
      ['-o', 'pipefail', '-c', line],
      { cwd: folder, env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}`, CI: 'true', NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 },
      (error, out, err) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out, err }),
    );
  });
}

/** The newest debug log of the state folder whose name ends with `suffix`. */
const newestLog = (suffix: string): string => {
  const logs = readdirSync(join(stateDir, 'logs'))
    .filter((f) => f.endsWith(suffix))
    .sort();
  expect(logs.length, `a *${suffix} in ${stateDir}/logs`).toBeGreaterThan(0);
  return join(stateDir, 'logs', logs.at(-1)!);
};

/** Run as written, in this order (an operator's day with the cluster). */
const AS_WRITTEN: readonly string[] = [
  'kcluster apply -i inventory.yaml --check --diff',
  'kcluster apply -i inventory.yaml',
  'kcluster apply -i inventory.yaml -o json | kcluster report timeline -',
  'kcluster kubeconfig -i inventory.yaml --file admin.conf',
  'kcluster kubeconfig -i inventory.yaml > admin.conf',
  'kcluster facts -i inventory.yaml',
  'kcluster facts -i inventory.yaml --limit cp1 -o json',
  'kcluster trust -i inventory.yaml all',
  'kcluster trust -i inventory.yaml w1 --refresh',
  'kcluster run -i inventory.yaml demo --check --diff',
  'kcluster run -i inventory.yaml ./my-playbook.mjs --limit worker',
  'kcluster apply -i inventory.yaml --limit w3 --tags kubelet',
  'kcluster status -i inventory.yaml',
  'kcluster status -i inventory.yaml -o json',
  'kcluster upgrade -i inventory.yaml --check',
  'kcluster certs check -i inventory.yaml',
  'kcluster certs check -i inventory.yaml --warn-days 60 -o json',
  'kcluster certs renew -i inventory.yaml --check',
  'kcluster certs renew -i inventory.yaml --yes',
  'kcluster secrets rotate-key -i inventory.yaml --check',
  'kcluster secrets rotate-key -i inventory.yaml --yes',
  'kcluster etcd snapshot save -i inventory.yaml',
  'kcluster etcd snapshot save -i inventory.yaml --file etcd.db',
  'kcluster etcd snapshot list -i inventory.yaml',
  'kcluster etcd snapshot list -i inventory.yaml -o json',
  'kcluster etcd snapshot restore -i inventory.yaml etcd.db --check',
  'kcluster etcd snapshot restore -i inventory.yaml etcd.db --yes',
  'kcluster apply -i inventory.yaml --check --plan-out plan.json',
  'kcluster plan show plan.json',
  'kcluster apply -i inventory.yaml --plan plan.json',
  'kcluster report timeline run.log --svg run.svg',
  // After the restore and the plan file: right after a restore the control plane's mirror pods
  // settle for up to a minute, and a plan made then went stale under CI's load once the
  // rotation ran before them (CI run of 52fef55).
  'kcluster certs rotate-ca -i inventory.yaml --check',
  'kcluster certs rotate-ca -i inventory.yaml --yes --restart-workloads',
  'kcluster reset -i inventory.yaml --check',
  'kcluster remove-node -i inventory.yaml w3 --check',
  'kcluster remove-node -i inventory.yaml w3 --yes',
  'kcluster reset -i inventory.yaml --limit w3 --yes',
];

/** Asks first, and with no terminal (as here) refuses: exit 2 and the flag that answers. */
const ASKS: readonly string[] = ['kcluster etcd snapshot restore -i inventory.yaml etcd.db'];

/** A value a run makes, filled in before the example runs (the rest exactly as written). */
const FILLED: Readonly<Record<string, () => Promise<string>>> = {
  'kcluster status -i inventory.yaml --run 2026-11-26T22-55-06': async () => {
    const status = JSON.parse((await typed('kcluster status -i inventory.yaml -o json')).out) as { runs?: { id: string }[]; run?: { id: string } };
    const id = status.run?.id ?? status.runs?.[0]?.id;
    expect(id, 'status -o json names a run').toBeDefined();
    return `kcluster status -i inventory.yaml --run ${id!}`;
  },
  'kcluster report timeline ~/.kcluster/mycluster/logs/2026-11-26T22-55-06-860Z-cluster.log': async () =>
    `kcluster report timeline ${newestLog('-cluster.log')}`,
  'kcluster etcd snapshot fetch -i inventory.yaml --from cp1 etcd-scheduled-cp1-2026-01-01T00-00-00Z.db': async () =>
    `kcluster etcd snapshot fetch -i inventory.yaml --from cp1 ${await scheduledSnapshot()}`,
  'kcluster etcd snapshot fetch -i inventory.yaml --from cp1 etcd-scheduled-cp1-2026-01-01T00-00-00Z.db --file etcd.db': async () =>
    `kcluster etcd snapshot fetch -i inventory.yaml --from cp1 ${await scheduledSnapshot()} --file etcd.db`,
};

/** Run elsewhere, or not at all here, and why. */
const ELSEWHERE: Readonly<Record<string, string>> = {
  'kcluster init --control-plane 10.0.0.1 --worker 10.0.0.2 --file inventory.yaml': 'no host: help-examples-run.test.ts',
  'kcluster validate -i inventory.yaml': 'no host: help-examples-run.test.ts',
  'kcluster config -i inventory.yaml > effective.yaml': 'no host: help-examples-run.test.ts',
  'kcluster config -i inventory.yaml --host cp1': 'no host: help-examples-run.test.ts',
  'kcluster config -i inventory.yaml --resolved -o json': 'no host: help-examples-run.test.ts',
  'kcluster artifacts list -i inventory.yaml': 'no host: help-examples-run.test.ts',
  'kcluster artifacts list -i inventory.yaml --fetch': 'no host: help-examples-run.test.ts',
  'kcluster lab up --hosts 3 --privileged': 'the default lab name: the lab tests run lab up, status and down under their own names',
  'kcluster lab status': 'the default lab name (test/integration/lab/lab.test.ts)',
  'kcluster lab down': 'the default lab name (test/integration/lab/lab.test.ts)',
  'kcluster lab up --name ha --hosts 4 --control-planes 3 --privileged': 'an HA lab: the ha e2e brings one up under its own name',
  'kcluster lab down --all': 'would take down the labs of the other e2e files running beside this one',
  'kcluster lab status --name ha -o json': 'an HA lab named ha (see above)',
  'sudo kcluster lab deps': 'installs Debian packages: .ci/run runs it once',
  'sudo kcluster lab deps --vm': 'installs QEMU: the VM lab tests (npm run test:extended)',
  'kcluster artifacts verify --bundle /srv/kcluster-bundle': 'a bundle at /srv: the README command and .ci/run verify the built bundle',
  'kcluster bundle build -i inventory.yaml': 'a bundle build (minutes): .ci/run builds the test bundle',
  'kcluster bundle build --upgrade-pair --every-component --test-tools': 'the test bundle: .ci/run builds exactly this',
  'kcluster upgrade -i inventory.yaml --to v1.37.2 --max-unavailable 2': 'needs a cluster a release behind: upgrade.test.ts',
  'kcluster certs rotate-ca -i inventory.yaml --yes --service-account-key --keep-old-key 60s':
    'ca-rotation.test.ts runs these flags (npm run test:extended): the old key is kept 60 s, then a second run drops it',
  'kcluster etcd snapshot save -i inventory.yaml --from cp2 --file etcd.db':
    'needs a second control plane: control-plane-lifecycle.test.ts saves from a chosen member',
  'kcluster etcd snapshot restore -i inventory.yaml --from-host cp2 etcd-scheduled-cp2-2026-01-01T00-00-00Z.db': 'needs a second control plane (see above)',
  'kcluster etcd snapshot fetch -i inventory.yaml --from-store etcd-2026-01-01T00-00-00-000Z.db': 'a state store: state-store.test.ts',
  'kcluster remove-node -i inventory.yaml cp1 --unreachable --yes': "a dead control plane of an HA cluster: ha.test.ts and the soak's lose-control-plane",
  'kcluster state show -i inventory.yaml': 'a state store: test/integration/state-store/state-command.test.ts',
  'kcluster state history -i inventory.yaml': 'a state store (see above)',
  'kcluster state show -i inventory.yaml -o json': 'a state store (see above)',
  'kcluster state rollback -i inventory.yaml --to 41 --yes': 'a state store (see above)',
  'kcluster state unlock -i inventory.yaml --yes': 'a state store (see above)',
  'kcluster state push -i inventory.yaml --yes': 'a state store (see above)',
  'kcluster state pull -i inventory.yaml': 'a state store (see above)',
  'kcluster state migrate -i inventory.yaml --to new-store.yaml --yes': 'two state stores (see above)',
};

/** The state folder's cluster, etcd and front-proxy CAs. */
const caFingerprints = (): string[] =>
  ['ca', 'etcd/ca', 'front-proxy-ca'].map((ca) => new X509Certificate(readFileSync(join(stateDir, 'pki', `${ca}.crt`))).fingerprint256);
let oldCas: string[] = [];

/**
 * After the CA rotation on this single control plane (CI's CA rotation; the HA one under
 * traffic is ca-rotation.test.ts, npm run test:extended): three new CAs, and every certificate
 * on every host and the controller is the state folder's, none of an old CA.
 */
async function expectOnlyNewCas(before: readonly string[]): Promise<void> {
  const now = caFingerprints();
  expect(before).toHaveLength(3);
  for (const [i, fingerprint] of now.entries()) expect(fingerprint).not.toBe(before[i]);
  const check = await typed('kcluster certs check -i inventory.yaml -o json');
  expect(check.code, check.err).toBe(0);
  const rows = (JSON.parse(check.out) as { certificates: { location: string; path: string; ca: boolean; matchesState: string; fingerprint256: string }[] })
    .certificates;
  expect(new Set(rows.map((r) => r.location))).toEqual(new Set(['controller', 'cp1', 'w1', 'w3']));
  expect(rows.filter((r) => r.matchesState === 'no').map((r) => `${r.location} ${r.path}`)).toEqual([]);
  expect(rows.filter((r) => r.ca && before.includes(r.fingerprint256)).map((r) => `${r.location} ${r.path}`)).toEqual([]);
}

/** A scheduled snapshot on cp1, made by its own timer's service (started once), by name. */
let scheduled: string | undefined;
async function scheduledSnapshot(): Promise<string> {
  if (scheduled !== undefined) return scheduled;
  await ssh(`${NAME}1`, 'systemctl start kcluster-etcd-snapshot.service');
  const list = JSON.parse((await typed('kcluster etcd snapshot list -i inventory.yaml -o json')).out) as {
    hosts: { host: string; snapshots: { name: string; kind: string }[] }[];
  };
  scheduled = list.hosts.find((h) => h.host === 'cp1')?.snapshots.find((s) => s.kind === 'scheduled')?.name;
  expect(scheduled, 'a scheduled snapshot on cp1').toBeDefined();
  return scheduled!;
}

describe('the help examples that need hosts, on a lab named as they name it', () => {
  it('every example is run here, run by another test (named), or run where no host is needed', () => {
    const all = [...new Set(Object.values(HELP_EXAMPLES).flat())];
    const classified = new Set([...AS_WRITTEN, ...ASKS, ...Object.keys(FILLED), ...Object.keys(ELSEWHERE)]);
    expect(all.filter((e) => !classified.has(e))).toEqual([]);
    expect(
      [...classified].filter((e) => !all.includes(e)),
      'a list names an example help no longer has',
    ).toEqual([]);
  });

  it('runs each as an operator types it, in order, each exiting 0', async () => {
    const lab = parse(readFileSync(join(labDir, 'inventory.yaml'), 'utf8')) as {
      hosts: { name: string }[];
      stateDir?: string;
      cluster?: Record<string, unknown>;
    };
    for (const host of lab.hosts) host.name = RENAMED[host.name] ?? host.name;
    lab.stateDir = stateDir;
    writeFileSync(join(folder, 'inventory.yaml'), stringify(lab));
    // The user's own playbook the run example names, importing kcluster as an installed package.
    mkdirSync(join(folder, 'node_modules'), { recursive: true });
    symlinkSync(resolve(import.meta.dirname, '../..'), join(folder, 'node_modules', 'kcluster'));
    writeFileSync(
      join(folder, 'my-playbook.mjs'),
      `import { managedFile } from 'kcluster';
export default {
  name: 'motd',
  description: 'a line in /etc/motd.d on the workers',
  plays: [{ name: 'motd', hosts: 'all', roles: [{ name: 'motd', tasks: [managedFile({ path: '/etc/motd.d/kcluster-example', mode: 0o644, content: (ctx) => \`managed on \${ctx.host.name}\\n\` })] }] }],
};
`,
    );
    const order = [...AS_WRITTEN.slice(0, 14), ...Object.keys(FILLED), ...AS_WRITTEN.slice(14)];
    for (const example of order) {
      if (example === 'kcluster report timeline run.log --svg run.svg') copyFileSync(newestLog('-cluster.log'), join(folder, 'run.log'));
      const line = FILLED[example] ? await FILLED[example]() : example;
      const r = await typed(line);
      // --check says with 3 that it found changes to make (docs/users/exit-codes.md); nothing ran.
      const allowed = /\s--check\b/.test(line) ? [0, 3] : [0];
      expect(allowed, `${line} exited ${r.code}\n${r.err.slice(-3000)}`).toContain(r.code);
      if (example.endsWith('> admin.conf')) expect(readFileSync(join(folder, 'admin.conf'), 'utf8')).toContain('apiVersion: v1');
      if (example.includes('--svg run.svg')) expect(existsSync(join(folder, 'run.svg'))).toBe(true);
      if (example === 'kcluster certs rotate-ca -i inventory.yaml --check') oldCas = caFingerprints();
      if (example === 'kcluster certs rotate-ca -i inventory.yaml --yes --restart-workloads') await expectOnlyNewCas(oldCas);
      if (example === 'kcluster etcd snapshot restore -i inventory.yaml etcd.db --check') {
        const asks = await typed(ASKS[0]!);
        expect(asks.code, asks.err).toBe(2);
        expect(asks.err).toContain('--yes');
      }
    }
  }, 1_500_000);
});
