// End to end: `kcluster upgrade` from the bundle's second-newest release to its newest (npm test's
// bundle: v1.36.5 and v1.37.2, the default; a bundle of v1.35.8 and v1.36.5 gives the documented
// 1.35 -> 1.36 run) on 1 control plane + 2 workers, while a 2-replica Deployment behind a NodePort
// Service is polled from the controller: no failed request. The first run gets SIGINT once the
// first worker's batch has changed something (`kcluster status` names the run interrupted and
// the workers' play left); the second has a worker made unreachable in the middle of the
// rollout, which stops it with a clear message (status: failed, that worker's play left, the
// command again); once it is back, a third run completes (status: completed); the next apply
// changes nothing.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcluster, parseEvents } from '../integration/support/test-lab.js';
import {
  bundleDir,
  bundleEntries,
  bundleKubernetesVersions,
  changesIn,
  kubectlBinary,
  newestKubernetesVersion,
  poller,
  recapOf,
  sshTo,
  until,
  webDeploymentBehindNodePort,
} from './support/e2e-support.js';
import { kclusterWatched } from './support/kcluster-watched.js';
import { runStatus } from './support/run-status.js';

const run = promisify(execFile);
const NAME = 'kceup';
const NET = '10.231.7';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const inventory = join(labDir, 'inventory.yaml');
const work = mkdtempSync(join(tmpdir(), 'kc-up-'));
const kubeconfig = join(work, 'admin.conf');
const OLD = (): string => {
  const versions = bundleKubernetesVersions();
  if (versions.length < 2)
    throw new Error(`the bundle holds ${versions.join(', ')}: the upgrade test needs two releases (kcluster bundle build --upgrade-pair --every-component)`);
  return versions.at(-2)!;
};

const lock = bundleEntries;
const NEW = (): string => newestKubernetesVersion();
const kubectl = (...args: string[]) => run(kubectlBinary(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args]).then((r) => r.stdout);
const setVersion = (version: string): void =>
  writeFileSync(
    inventory,
    readFileSync(inventory, 'utf8').replace(/^cluster:\n( {2}kubernetesVersion: .*\n)?/m, `cluster:\n  kubernetesVersion: ${version}\n`),
  );
const importImage = (host: string, file: string) => sshTo(labDir)(host, 'ctr -n k8s.io images import -', readFileSync(file));
const ssh = sshTo(labDir);
async function nodeVersions(): Promise<Record<string, string>> {
  const nodes = JSON.parse(await kubectl('get', 'nodes', '-o', 'json')) as {
    items: { metadata: { name: string }; status: { nodeInfo: { kubeletVersion: string }; conditions: { type: string; status: string }[] } }[];
  };
  return Object.fromEntries(
    nodes.items.map((n) => [
      n.metadata.name,
      `${n.status.nodeInfo.kubeletVersion}${n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? '' : ' NotReady'}`,
    ]),
  );
}
const BLOCK = ['OUTPUT', '-d', `${NET}.13`, '-p', 'tcp', '--dport', '22', '-j', 'REJECT', '--reject-with', 'tcp-reset'];

beforeAll(async () => {
  bundleDir();
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '3', '--privileged', '--subnet', `${NET}.0/24`, '--bundle', bundleDir()]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
});
afterAll(async () => {
  await run('iptables', ['-D', ...BLOCK]).catch(() => undefined);
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
});

describe('kcluster upgrade from the previous release in the bundle to the newest, under load', () => {
  it('upgrades with zero failed requests, stops cleanly on Ctrl-C and on an unreachable worker, and a rerun completes', async () => {
    setVersion(OLD());
    const install = await kcluster(['apply', '-i', inventory]);
    expect(install.code, install.stderr + install.stdout.slice(-3000)).toBe(0);
    expect((await kcluster(['kubeconfig', '-i', inventory, '--file', kubeconfig])).code).toBe(0);
    await until('3 nodes Ready at the old version', 240_000, async () =>
      Object.values(await nodeVersions()).every((v) => v === OLD()) && Object.keys(await nodeVersions()).length === 3 ? true : undefined,
    );

    const busybox = lock().find((a) => a.name === 'busybox')!;
    for (const host of [`${NAME}2`, `${NAME}3`]) await importImage(host, join(bundleDir(), busybox.path));
    const app = join(work, 'app.yaml');
    writeFileSync(app, webDeploymentBehindNodePort(busybox.reference!));
    await kubectl('apply', '-f', app);
    await kubectl('rollout', 'status', 'deployment/web', '--timeout=180s');
    // The Service must answer before the measurement starts (kube-proxy and the vxlan routes
    // take a few seconds after the pods are Ready).
    const probe = poller(`http://${NET}.11:30080/`);
    await until('the NodePort answers 10 times in a row', 120_000, async () => (probe.counts.streak >= 10 ? true : undefined));
    await probe.stop();
    const poll = poller(`http://${NET}.11:30080/`);
    // A worker's NodePort too: its kube-proxy is rolled by the addons play long before the
    // worker's own turn (issue 40: with the image not there yet, the roll stopped at 1 of 3).
    const workerPoll = poller(`http://${NET}.12:30080/`);
    await new Promise((r) => setTimeout(r, 3000));
    const upgradeStarted = Date.now();

    setVersion(NEW());
    // The upgrade reviewed as a plan file first: written by --check --plan-out, shown by plan
    // show, then made stale by a hand edit on a worker: --plan refuses it, exit 2, nothing changed.
    const planFile = join(work, 'upgrade-plan.json');
    const planned = await kcluster(['upgrade', '-i', inventory, '--check', '--plan-out', planFile]);
    expect(planned.code, planned.stderr.slice(-2000)).toBe(3);
    expect(planned.stderr).toMatch(/plan written to .*upgrade-plan\.json: \d+ change\(s\) on 3 host\(s\)/);
    const shown = await kcluster(['plan', 'show', planFile]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`kubelet ${NEW()}`);
    await ssh(`${NAME}3`, "sed -i '1i # edited by hand after the review' /var/lib/kubelet/config.yaml");
    const stale = await kcluster(['upgrade', '-i', inventory, '--plan', planFile]);
    expect(stale.code, stale.stderr.slice(-2000)).toBe(2);
    expect(stale.stderr).toContain('is stale, nothing was changed');
    expect(stale.stderr).toMatch(new RegExp(`${NAME}3: [^\\n]*/var/lib/kubelet/config\\.yaml[^\\n]* changed since the plan`));
    expect(Object.values(await nodeVersions())).toEqual([OLD(), OLD(), OLD()]);

    // Ctrl-C once the first worker's batch has changed something: the run stops cleanly (130)
    // and the journal says what was left.
    let interruptedAt = '';
    const interrupted = await kclusterWatched(['upgrade', '-i', inventory], (event, child) => {
      if (interruptedAt === '' && event['type'] === 'task-result' && event['play'] === 'nodes, in batches' && event['status'] === 'changed') {
        interruptedAt = `${String(event['host'])}: ${String(event['task'])}`;
        child.kill('SIGINT');
      }
    });
    expect(interruptedAt, interrupted.err + interrupted.out.slice(-2000)).not.toBe('');
    expect(interrupted.code, interrupted.err + interrupted.out.slice(-2000)).toBe(130);
    const afterSigint = await runStatus(inventory);
    console.log(`upgrade: SIGINT after ${interruptedAt}; status: ${JSON.stringify(afterSigint.last.hosts.map((h) => [h.host, h.left]))}`);
    expect(afterSigint.last).toMatchObject({ result: 'interrupted', next: `kcluster upgrade -i ${inventory} --output json` });
    for (const worker of [`${NAME}2`, `${NAME}3`]) expect(afterSigint.last.hosts.find((h) => h.host === worker)?.left, worker).toContain('nodes, in batches');
    expect((await nodeVersions())[`${NAME}1`]).toBe(NEW());

    // Make the second worker unreachable for kcluster (SSH only) once the node batches begin.
    let blocked = false;
    const { code, out, err } = await kclusterWatched(['upgrade', '-i', inventory], (event) => {
      if (!blocked && event['type'] === 'play-start' && event['play'] === 'nodes, in batches') {
        blocked = true;
        execFile('iptables', ['-I', ...BLOCK]);
      }
    });
    expect(blocked, err).toBe(true);
    expect(code, err + out.slice(-2000)).toBe(5);
    expect(err).toContain('upgrade plan: API servers');
    const stopped = parseEvents(out)
      .filter((e) => e['type'] === 'host-unreachable')
      .map((e) => e['host']);
    expect(stopped).toEqual([`${NAME}3`]);
    const midway = await nodeVersions();
    expect(midway[`${NAME}1`]).toBe(NEW());
    expect(midway[`${NAME}3`]).toBe(OLD());
    // The run journal: status names the stopped upgrade, the host left, and the command again.
    const journal = await runStatus(inventory);
    expect(journal.last).toMatchObject({ result: 'failed', exitCode: 5, next: `kcluster upgrade -i ${inventory} --output json` });
    const left = journal.last.hosts.find((h) => h.host === `${NAME}3`)!;
    expect(left.plays).toContainEqual(expect.objectContaining({ play: 'nodes, in batches', state: 'unreachable' }));
    expect(left.left).toContain('nodes, in batches');

    await run('iptables', ['-D', ...BLOCK]);
    const rerun = await kcluster(['upgrade', '-i', inventory, '--output', 'json']);
    expect(rerun.code, rerun.stderr + rerun.stdout.slice(-2000)).toBe(0);
    expect((await runStatus(inventory)).last).toMatchObject({ result: 'completed', hosts: [{ left: [] }, { left: [] }, { left: [] }] });
    const versions = await nodeVersions();
    expect(versions).toEqual({ [`${NAME}1`]: NEW(), [`${NAME}2`]: NEW(), [`${NAME}3`]: NEW() });
    expect(rerun.stderr).not.toContain('still cordoned');
    expect(JSON.parse(await kubectl('get', 'nodes', '-o', 'json')).items.every((n: { spec: { unschedulable?: boolean } }) => !n.spec.unschedulable)).toBe(true);

    // Done means every addon rolled out at the new version: kube-proxy's pod on every node runs
    // the new image and is Ready (the upgrade's last play waits for that before it exits 0).
    const proxies = JSON.parse(await kubectl('-n', 'kube-system', 'get', 'pods', '-l', 'k8s-app=kube-proxy', '-o', 'json')) as {
      items: { spec: { nodeName: string; containers: { image: string }[] }; status: { conditions?: { type: string; status: string }[] } }[];
    };
    expect(
      proxies.items
        .map((p) => `${p.spec.nodeName} ${p.spec.containers[0]!.image.split(':').pop()!} ${p.status.conditions?.find((c) => c.type === 'Ready')?.status}`)
        .sort(),
    ).toEqual([1, 2, 3].map((i) => `${NAME}${i} ${NEW()} True`));

    await new Promise((r) => setTimeout(r, 3000));
    await poll.stop();
    await workerPoll.stop();
    console.log(
      `upgrade under load: ${((Date.now() - upgradeStarted) / 1000).toFixed(0)} s (three runs), control plane's NodePort ${poll.counts.ok} answers, ${poll.counts.failed} failures ${JSON.stringify(poll.counts.failures.slice(0, 5))}; a worker's ${workerPoll.counts.ok} answers, ${workerPoll.counts.failed} failures ${JSON.stringify(workerPoll.counts.failures.slice(0, 5))}`,
    );
    expect(poll.counts.ok).toBeGreaterThan(100);
    expect(poll.counts.failed).toBe(0);
    expect(workerPoll.counts.ok).toBeGreaterThan(100);
    expect(workerPoll.counts.failed).toBe(0);

    const again = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(
      recapOf(again.stdout).map((h) => h.changed),
      changesIn(again.stdout),
    ).toEqual([0, 0, 0]);
  });
});
