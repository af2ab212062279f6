// End to end, a cluster managed by a team through a state store (issue 41): 1 control plane +
// 1 worker from the bundle, the state in a real S3 server (versitygw, built from source) on the
// controller's side of the lab bridge, where the control plane reaches it too. Controller A
// installs; the store holds the state from before the first change on a host. Controller B,
// with nothing but the inventory, the store's credentials and the key, converges the same
// cluster with 0 changed and reaches its API. A snapshot A saves is in the store, sealed, and B
// fetches it back; a scheduled snapshot the control plane takes is copied into the store by the
// control plane itself (cluster.state.scheduledSnapshots), and B fetches that back too. While A
// holds the lease, B is refused with A named; with the store down, B is refused before anything.
// The control plane's upload credential is a user of the server limited by the bucket policy of
// examples/scheduled-snapshots-bucket-policy.json.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLease } from '../../src/orchestrator/state-store/lease.js';
import { S3Client } from '../../src/orchestrator/state-store/s3/s3-client.js';
import { kcluster } from '../integration/support/test-lab.js';
import { startS3Server, type S3TestServer } from '../integration/support/s3-server.js';
import { snapshotUploaderPolicy } from '../integration/support/snapshot-uploader-policy.js';
import { answersHello, bundleDir, bundleEntries, kubectlBinary, recapOf, sshTo, until, webDeploymentBehindNodePort } from './support/e2e-support.js';

const run = promisify(execFile);
/** The web pods' sandbox addresses on the host, as the runtime has them, one a line. */
const WEB_SANDBOX_IPS = `crictl pods -q --label app=web | xargs -r -n1 crictl inspectp | sed -n 's/.*"ip": "\\(.*\\)".*/\\1/p'`;
const WORKER_NETWORK_DIAGNOSTICS = [
  'ip -4 -o addr show cni0; cat /run/flannel/subnet.env; ip -4 route',
  'for p in $(crictl pods -q --label app=web); do crictl inspectp "$p" | grep -E \'"(ip|state|createdAt)"\'; done',
  "iptables-save -t nat | grep -E 'default/web' | head -20",
  `for ip in $(${WEB_SANDBOX_IPS}); do timeout 2 bash -c "echo > /dev/tcp/$ip/8080" && echo "$ip:8080 answers" || echo "$ip:8080 does not answer"; done`,
  'journalctl -u kubelet --since -10min --no-pager | grep -iE "web-|cni|sandbox" | tail -20',
  // the NetworkPolicy agent and kube-proxy decide the forwarded traffic the host's own probes do not cross
  'for n in kube-network-policies kube-proxy; do c=$(crictl ps -q --name "$n" | head -n 1); echo "$n $c"; [ -n "$c" ] && crictl logs --tail 15 "$c" 2>&1; done',
  'nft list ruleset 2>/dev/null | grep -ciE "queue" || true',
].join('; echo ---; ');
/** Each ready pod sandbox on the host with its address, as the runtime has them. */
const SANDBOX_ADDRESSES = `for p in $(crictl pods -q --state ready); do crictl inspectp -o go-template --template '{{.status.metadata.name}}={{.status.network.ip}} ' "$p"; done`;
/** Whether `host:port` serves the web page, from where the script runs. */
const servesWeb = (target: string): string =>
  `timeout 3 bash -c 'exec 3<>/dev/tcp/${target.replace(':', '/')}; printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3; cat <&3' 2>/dev/null | grep -q hello && echo ok || echo fail`;
/**
 * One line of the worker's forwarding path, for the error itself: the suite's log is often read
 * cut to its tail, where only a failure's first lines are left.
 */
const WORKER_FORWARDING_VERDICT = [
  `echo "nodeport from the worker: $(${servesWeb('10.231.24.12:30080')}), via 127.0.0.1: $(${servesWeb('127.0.0.1:30080')})"`,
  `echo "kube-proxy DNAT: $(iptables-save -t nat | grep default/web | grep -o -- '--to-destination [0-9.:]*' | cut -d' ' -f2 | sort -u | tr '\\n' ' ')"`,
  `echo "sandboxes: $(${WEB_SANDBOX_IPS} | tr '\\n' ' ')"`,
  `echo "ip_forward=$(cat /proc/sys/net/ipv4/ip_forward) $(iptables -S FORWARD | head -n 1) queue rules=$(nft list ruleset 2>/dev/null | grep -ciE queue)"`,
].join('; ');
const NAME = 'kcestate';
const BRIDGE_ADDRESS = '10.231.24.1';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const work = mkdtempSync(join(tmpdir(), 'kc-state-store-'));
let server: S3TestServer;
let env: NodeJS.ProcessEnv;

/** The lab's inventory with the state in the store and this controller's own state folder. */
function inventoryFor(controller: string): string {
  const file = join(work, `${controller}.yaml`);
  const lab = readFileSync(join(labDir, 'inventory.yaml'), 'utf8');
  writeFileSync(
    file,
    lab
      .replace(/^stateDir: .*$/m, `stateDir: ${join(work, `state-${controller}`)}`)
      .replace(
        /^cluster:\n/m,
        `cluster:\n  state:\n    s3: { endpoint: "${server.endpoint}", bucket: kcluster, prefix: ${NAME}/ }\n    key: { file: ${join(work, 'state.key')} }\n    scheduledSnapshots: { accessKeyIdEnv: SNAPSHOT_ID, secretAccessKeyEnv: SNAPSHOT_SECRET, keep: 2 }\n`,
      ),
  );
  return file;
}

beforeAll(async () => {
  bundleDir();
  // The key made as docs/users/state-store.md says.
  await run('sh', ['-c', 'umask 077; head -c 32 /dev/urandom | base64 > state.key'], { cwd: work });
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '2', '--privileged', '--subnet', '10.231.24.0/24', '--bundle', bundleDir()]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
  // On the bridge's own address: the controller and the control plane both reach it there.
  server = await startS3Server({ versioned: true, host: BRIDGE_ADDRESS, users: true });
  await new S3Client({ endpoint: server.endpoint, bucket: 'kcluster', region: 'us-east-1', pathStyle: true }, server).createBucket();
  const uploader = { id: 'control-planes', secret: randomBytes(18).toString('base64') };
  await server.addUser(uploader.id, uploader.secret);
  await server.putBucketPolicy('kcluster', snapshotUploaderPolicy('kcluster', `${NAME}/`, uploader.id));
  env = {
    AWS_ACCESS_KEY_ID: server.accessKeyId,
    AWS_SECRET_ACCESS_KEY: server.secretAccessKey,
    SNAPSHOT_ID: uploader.id,
    SNAPSHOT_SECRET: uploader.secret,
  };
}, 900_000);
afterAll(async () => {
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
  await server?.stop();
});

describe('a cluster whose state is in a store', () => {
  it('controller A installs, publishing the state before the first change on a host', async () => {
    const a = inventoryFor('a');
    const apply = await kcluster(['apply', '-i', a], env);
    expect(apply.code, apply.stderr + apply.stdout.slice(-3000)).toBe(0);
    expect(apply.stderr).toMatch(/state published to s3:\/\/kcluster\/kcestate\/ as generation 1 \(cluster: before the first change on a host\)/);
    const history = JSON.parse((await kcluster(['state', 'history', '-i', a, '-o', 'json'], env)).stdout) as { reason: string; files: number }[];
    expect(history[0]!.files).toBeGreaterThan(20);
    const show = JSON.parse((await kcluster(['state', 'show', '-i', a, '-o', 'json'], env)).stdout) as { lease: unknown; generation: number };
    expect(show.lease).toBeNull();
  });

  it('controller B, with only the inventory, the credentials and the key, converges it with 0 changed and reaches its API', async () => {
    const b = inventoryFor('b');
    expect(existsSync(join(work, 'state-b'))).toBe(false);
    const apply = await kcluster(['apply', '-i', b, '--output', 'json'], env);
    expect(apply.code, apply.stderr + apply.stdout.slice(-3000)).toBe(0);
    expect(recapOf(apply.stdout).map((h) => h.changed)).toEqual([0, 0]);
    expect(apply.stderr).toMatch(/state from s3:\/\/kcluster\/kcestate\/ generation \d+: \d+ file\(s\) brought into /);
    // Both runs' logs are in the store, A's install and B's converge.
    const logs: string[] = [];
    for await (const o of new S3Client({ endpoint: server.endpoint, bucket: 'kcluster', region: 'us-east-1', pathStyle: true }, server).list(`${NAME}/logs/`))
      logs.push(o.key);
    expect(logs.filter((k) => k.endsWith('-cluster.log.kce'))).toHaveLength(2);
    const kubeconfig = join(work, 'b.conf');
    expect((await kcluster(['kubeconfig', '-i', b, '--file', kubeconfig], env)).code).toBe(0);
    const nodes = await until('both Nodes listed through B`s kubeconfig', 60_000, async () => {
      const out = await run(kubectlBinary(), ['--kubeconfig', kubeconfig, 'get', 'nodes', '-o', 'name']).then(
        (r) => r.stdout,
        () => '',
      );
      return out.trim().split('\n').length === 2 ? out : undefined;
    });
    expect(nodes).toContain(`node/${NAME}1`);
  });

  it('a snapshot A saves is in the store, sealed; B lists it and fetches it back byte for byte', async () => {
    const a = inventoryFor('a');
    const save = await kcluster(['etcd', 'snapshot', 'save', '-i', a], env);
    expect(save.code, save.stderr).toBe(0);
    const local = save.stdout.trim().split('\n').pop()!;
    const name = local.split('/').pop()!;
    expect(save.stderr).toContain(`sealed copy in s3://kcluster/${NAME}/snapshots/${name}.kce`);
    const b = inventoryFor('b');
    const list = JSON.parse((await kcluster(['etcd', 'snapshot', 'list', '-i', b, '-o', 'json'], env)).stdout) as {
      hosts: { host: string; snapshots: { name: string; kind: string }[] }[];
    };
    expect(list.hosts.find((h) => h.host === 'store')?.snapshots).toContainEqual(expect.objectContaining({ name, kind: 'stored' }));
    const fetch = await kcluster(['etcd', 'snapshot', 'fetch', '-i', b, '--from-store', name], env);
    expect(fetch.code, fetch.stderr).toBe(0);
    expect(readFileSync(fetch.stdout.trim()).equals(readFileSync(local))).toBe(true);
  });

  it('a scheduled snapshot is copied into the store by the control plane itself, sealed; B fetches it back byte for byte', async () => {
    const ssh = sshTo(labDir);
    const cp = `${NAME}1`;
    // What the timer runs, run now.
    await ssh(cp, 'systemctl start kcluster-etcd-snapshot.service');
    const journal = await ssh(cp, 'journalctl -u kcluster-etcd-snapshot.service -o cat --no-pager -n 20');
    const name = [...journal.matchAll(/uploaded (etcd-scheduled-\S+\.db) to s3:\/\/kcluster\/kcestate\/scheduled-snapshots\/kcestate1\//g)].at(-1)?.[1];
    expect(name, journal).toBeDefined();
    expect(await ssh(cp, `ls /var/lib/kcluster/backups/scheduled/`)).toContain(`${name}.uploaded`);
    // The control plane holds no state key: its settings name the public key and the key's fingerprint only.
    const settings = JSON.parse(await ssh(cp, 'cat /etc/kcluster/snapshot-upload.json')) as Record<string, unknown>;
    expect(Object.keys(settings).sort()).toEqual(
      [
        'accessKeyId',
        'bucket',
        'endpoint',
        'folder',
        'keep',
        'kid',
        'localDir',
        'namePrefix',
        'pathStyle',
        'recipient',
        'region',
        'secretAccessKey',
        'storePrefix',
      ].sort(),
    );
    expect((await ssh(cp, 'stat -c %a /etc/kcluster/snapshot-upload.json')).trim()).toBe('600');
    const b = inventoryFor('b');
    const list = JSON.parse((await kcluster(['etcd', 'snapshot', 'list', '-i', b, '-o', 'json'], env)).stdout) as {
      hosts: { host: string; snapshots: { name: string; path: string }[] }[];
    };
    expect(list.hosts.find((h) => h.host === 'store')?.snapshots).toContainEqual(
      expect.objectContaining({ name, path: `s3://kcluster/${NAME}/scheduled-snapshots/${cp}/${name}.kcp` }),
    );
    const fetch = await kcluster(['etcd', 'snapshot', 'fetch', '-i', b, '--from-store', name!], env);
    expect(fetch.code, fetch.stderr).toBe(0);
    const onHost = (await ssh(cp, `sha256sum /var/lib/kcluster/backups/scheduled/${name}`)).split(' ')[0];
    expect((await run('sha256sum', [fetch.stdout.trim()])).stdout.split(' ')[0]).toBe(onHost);
    // A second apply by B changes nothing, the control plane's settings included.
    const again = await kcluster(['apply', '-i', b, '--output', 'json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(recapOf(again.stdout).map((h) => h.changed)).toEqual([0, 0]);
  });

  it('disaster: every host and both state folders lost; controller C restores the cluster onto fresh hosts from the store alone', async () => {
    const ssh = sshTo(labDir);
    const kubectl = (kubeconfig: string, ...args: string[]) => run(kubectlBinary(), ['--kubeconfig', kubeconfig, ...args]).then((r) => r.stdout);
    // The operator's objects: a Secret (encrypted at rest) and a Deployment behind a NodePort on the worker.
    const before = join(work, 'b.conf');
    const busybox = bundleEntries().find((a) => a.name === 'busybox')!;
    const image = readFileSync(join(bundleDir(), busybox.path));
    await ssh(`${NAME}2`, 'ctr -n k8s.io images import -', image);
    writeFileSync(join(work, 'web.yaml'), webDeploymentBehindNodePort(busybox.reference!));
    await kubectl(before, 'apply', '-f', join(work, 'web.yaml'));
    await kubectl(before, 'create', 'secret', 'generic', 'db-password', '--from-literal=password=before-the-disaster');
    await kubectl(before, 'rollout', 'status', 'deployment/web', '--timeout=180s');
    console.log(`before the disaster: web pods ${await kubectl(before, 'get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].status.podIP}')}`);
    // The next scheduled snapshot, copied into the store by the control plane: all the store will have of etcd.
    await ssh(`${NAME}1`, 'systemctl start kcluster-etcd-snapshot.service');
    const journal = await ssh(`${NAME}1`, 'journalctl -u kcluster-etcd-snapshot.service -o cat --no-pager -n 20');
    const name = [...journal.matchAll(/uploaded (etcd-scheduled-\S+\.db) to /g)].at(-1)?.[1];
    expect(name, journal).toBeDefined();

    // Every host gone (all its processes killed at once), then made again from the bare base
    // image: same names and addresses, new SSH host keys, nothing of the cluster. Both
    // controllers' state folders gone too.
    for (const i of [1, 2]) await run('sh', ['-c', `echo 1 > /sys/fs/cgroup/unified/kcluster-lab/${NAME}${i}/cgroup.kill`]);
    for (const i of [1, 2]) {
      const host = join('/var/lib/kcluster/labs', NAME, 'hosts', `${NAME}${i}`);
      await until(`${NAME}${i} gone`, 30_000, async () =>
        existsSync(join(host, 'pid')) &&
        (await run('sh', ['-c', `kill -0 $(cat ${host}/pid)`]).then(
          () => true,
          () => false,
        ))
          ? undefined
          : true,
      );
      await run('sh', ['-c', `umount -R ${host}/root 2>/dev/null; rm -rf ${host}/upper ${host}/work ${host}/data ${host}/pid`]);
    }
    rmSync(join(work, 'state-a'), { recursive: true, force: true });
    rmSync(join(work, 'state-b'), { recursive: true, force: true });
    const again = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '2', '--privileged', '--subnet', '10.231.24.0/24', '--bundle', bundleDir()]);
    expect(again.code, again.stderr).toBe(0);

    // Controller C: the inventory, the store's credentials and the key, nothing else.
    const c = inventoryFor('c');
    // The new hosts' keys are in the lab's known_hosts (ssh.knownHostsFile), as an operator's
    // known_hosts would be once they re-keyed the replaced machines.
    const install = await kcluster(['apply', '-i', c], env);
    expect(install.code, install.stderr + install.stdout.slice(-3000)).toBe(0);
    await ssh(`${NAME}2`, 'ctr -n k8s.io images import -', image);
    const restore = await kcluster(['etcd', 'snapshot', 'restore', '-i', c, '--from-store', name!, '--yes'], env);
    expect(restore.code, restore.stderr + restore.stdout.slice(-3000)).toBe(0);

    // The objects are back, the Secret decrypted with the keys from the store, the Deployment's pods running again.
    const after = join(work, 'c.conf');
    expect((await kcluster(['kubeconfig', '-i', c, '--file', after], env)).code).toBe(0);
    const password = await until('the Secret readable', 120_000, async () =>
      kubectl(after, 'get', 'secret', 'db-password', '-o', 'jsonpath={.data.password}').then(
        (out) => Buffer.from(out, 'base64').toString(),
        () => undefined,
      ),
    );
    expect(password).toBe('before-the-disaster');
    const webEndpoints = (): Promise<string> =>
      kubectl(after, 'get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[*].endpoints[*].addresses}').catch(
        (e: Error) => e.message,
      );
    // For the log: the web endpoints as restored, against the addresses the worker's pods have
    // now, as its runtime has them (a restored pod can hold an old web pod's address until the
    // endpoints catch up; the API's pod status is the snapshot's until each kubelet reports).
    console.log(
      `after the restore: web endpoints ${await webEndpoints()}; the worker's sandboxes: ${await ssh(`${NAME}2`, SANDBOX_ADDRESSES).catch((e: Error) => e.message)}`,
    );
    // On a miss, what the cluster shows of the web pods and their endpoints, for the log.
    await until('the web Service answers on the new worker', 300_000, () => answersHello('http://10.231.24.12:30080/')).catch(async (error: Error) => {
      console.log(await kubectl(after, 'get', 'pods,endpointslices,nodes', '-A', '-o', 'wide').catch((e: Error) => e.message));
      console.log(
        await kubectl(after, 'get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.podCIDR} {.metadata.annotations}{"\\n"}{end}').catch(
          (e: Error) => e.message,
        ),
      );
      // The worker's side: its bridge, flannel lease and routes against its Node's CIDR (a route
      // left through flannel.1 to what is now its own CIDR would swallow the traffic), the web pods'
      // sandboxes as the runtime has them, kube-proxy's rules for the Service, and whether each
      // endpoint answers from the worker itself.
      console.log(await ssh(`${NAME}2`, WORKER_NETWORK_DIAGNOSTICS).catch((e: Error) => e.message));
      const fromWorker = await ssh(`${NAME}2`, WORKER_FORWARDING_VERDICT).catch((e: Error) => e.message);
      const fromControlPlane = await ssh(`${NAME}1`, servesWeb('10.231.24.12:30080')).catch((e: Error) => e.message);
      const endpoints = await webEndpoints();
      throw new Error(
        `${error.message}\n${fromWorker.trim().split('\n').join('; ')}\nnodeport from the control plane: ${fromControlPlane.trim()}; endpoints: ${endpoints}`,
      );
    });
    const converged = await kcluster(['apply', '-i', c, '--output', 'json'], env);
    expect(converged.code, converged.stderr).toBe(0);
    expect(recapOf(converged.stdout).map((h) => h.changed)).toEqual([0, 0]);
  });

  it('refuses B while A holds the lease, naming A; and refuses it before anything while the store is down', async () => {
    const b = inventoryFor('b');
    const s3 = new S3Client({ endpoint: server.endpoint, bucket: 'kcluster', region: 'us-east-1', pathStyle: true }, server);
    const held = await acquireLease(s3, `${NAME}/`, { command: `kcluster upgrade -i a.yaml`, machine: 'laptop-a', pid: 4242 });
    const refused = await kcluster(['apply', '-i', b], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('another controller holds the lease s3://kcluster/kcestate/lease.json: kcluster upgrade -i a.yaml (pid 4242 on laptop-a');
    await held.release();
    await server.stop();
    const down = await kcluster(['apply', '-i', b], env);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/no answer after 4 tries .*check that the store at http:\/\/10\.231\.24\.1:\d+ is reachable/);
  });
});
