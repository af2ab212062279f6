// End to end, HA without a load balancer: 3 control planes (stacked etcd) + 1 worker, every
// node reaching the API servers through kcluster-apiproxy. With the first control plane
// stopped (kubelet, containerd and every container on it), the cluster keeps answering: reads
// and writes through another control plane, the worker stays Ready through its proxy, and
// apply --limit '!FIRST' plans the once-per-cluster steps on the second control plane.
// Before that, on the running cluster, an API server flag the API server refuses is undone on
// the first control plane (its last good manifest put back) with the others untouched; the
// flag fixed is rolled out by apply one control plane at a time; some API server answers
// throughout, and a second apply changes nothing. Then the operator's settings under traffic:
// a feature gate, a registry mirror with credentials reached through an HTTP proxy (set from
// the install on, which nothing else goes through), OIDC login against a test issuer, a file a
// flag reads, a CoreDNS stub domain (its Corefile lines in the diff) and the operator's own
// manifests, each shown first by --check --diff.
import { execFile } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { kcluster, parseEvents } from '../integration/support/test-lab.js';
import {
  answersHello,
  apiServersPoller,
  bundleDir,
  bundleEntries,
  changesIn,
  kubectlBinary,
  poller,
  recapOf,
  sshTo,
  until,
  webDeploymentBehindNodePort,
  writeKubeconfigAs,
} from './support/e2e-support.js';
import { startTestDnsServer } from './support/test-dns-server.js';
import { startTestHttpProxy } from './support/test-http-proxy.js';
import { startTestOidcIssuer } from './support/test-oidc-issuer.js';
import { startTestRegistry } from './support/test-registry.js';

const run = promisify(execFile);
const NAME = 'kceha';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const inventory = join(labDir, 'inventory.yaml');
const work = mkdtempSync(join(tmpdir(), 'kc-ha-'));

const kubectlPath = (): string => kubectlBinary();
const ssh = sshTo(labDir);

beforeAll(async () => {
  bundleDir();
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster([
    'lab',
    'up',
    '--name',
    NAME,
    '--hosts',
    '4',
    '--control-planes',
    '3',
    '--privileged',
    '--subnet',
    '10.231.6.0/24',
    '--bundle',
    bundleDir(),
  ]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
});
afterAll(async () => {
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
});

describe('HA: 3 control planes without a load balancer, 1 worker', () => {
  it('installs, rolls a control-plane change one node at a time, and keeps answering with the first control plane stopped', async () => {
    // The nodes reach the outside only through an HTTP proxy (cluster.proxy, from the install
    // on): the registry pull below goes through it, the cluster's own traffic (NO_PROXY: nodes,
    // API endpoint, CIDRs, cluster domain) never does.
    const httpProxy = await startTestHttpProxy('10.231.6.1');
    const installed = parse(readFileSync(inventory, 'utf8')) as { cluster: Record<string, unknown> };
    installed.cluster['proxy'] = { http: httpProxy.url, https: httpProxy.url };
    writeFileSync(inventory, stringify(installed));
    const started = Date.now();
    const apply = await kcluster(['apply', '-i', inventory]);
    expect(apply.code, `${apply.stderr}\n${apply.stdout.slice(-3000)}`).toBe(0);
    const adminFile = join(work, 'admin.conf');
    expect((await kcluster(['kubeconfig', '-i', inventory, '--file', adminFile])).code).toBe(0);
    // The same credentials through the second control plane.
    const viaCp2 = join(work, 'cp2.conf');
    writeFileSync(viaCp2, readFileSync(adminFile, 'utf8').replace(/server: https:\/\/[^:]+:6443/, 'server: https://10.231.6.12:6443'));
    const kubectl = (config: string, ...args: string[]) => run(kubectlPath(), ['--kubeconfig', config, '--request-timeout=15s', ...args]).then((r) => r.stdout);
    const readyNodes = async (config: string): Promise<string[]> => {
      const nodes = JSON.parse(await kubectl(config, 'get', 'nodes', '-o', 'json')) as {
        items: { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } }[];
      };
      return nodes.items
        .filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'))
        .map((n) => n.metadata.name)
        .sort();
    };
    await until('4 nodes Ready', 240_000, async () => ((await readyNodes(adminFile)).length === 4 ? true : undefined));
    console.log(`ha: empty hosts to 4 nodes Ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect((await ssh(`${NAME}4`, 'systemctl is-active kcluster-apiproxy')).trim()).toBe('active');
    expect(await ssh(`${NAME}4`, 'grep server: /etc/kubernetes/kubelet.conf')).toContain('https://127.0.0.1:6444');

    // The operator's API server flags on a running cluster, under polling of every API server.
    const cps = [1, 2, 3].map((i) => `${NAME}${i}`);
    const apiPolling = apiServersPoller(
      labDir,
      [11, 12, 13].map((i) => `10.231.6.${i}`),
    );
    const answers = apiPolling.answers;
    const original = parse(readFileSync(inventory, 'utf8')) as { cluster: Record<string, unknown>; vars?: Record<string, unknown> };
    const withApiServerArgs = (extraArgs: Record<string, string>, certSANs: string[] = []) =>
      writeFileSync(
        inventory,
        stringify({ ...original, cluster: { ...original.cluster, apiServer: { extraArgs, certSANs } }, vars: { ...original.vars, readyTimeoutSeconds: 60 } }),
      );
    const manifestSums = async () => Promise.all(cps.map(async (h) => (await ssh(h, 'sha256sum /etc/kubernetes/manifests/kube-apiserver.yaml')).split(' ')[0]));
    const before = await manifestSums();

    // A flag the API server refuses: the first control plane does not come back, so its last
    // good manifest goes back, it comes back, and the run stops before the second one.
    withApiServerArgs({ 'event-ttl': '2h0m0s', 'no-such-flag': 'on' });
    const refused = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(refused.code, refused.stderr).toBe(4);
    const failure = parseEvents(refused.stdout).find((e) => e['type'] === 'task-result' && e['status'] === 'failed') as
      { host: string; task: string; error: string } | undefined;
    expect(failure?.host).toBe(`${NAME}1`);
    expect(failure?.task).toBe('API server current, before the controller-manager and scheduler');
    expect(failure?.error).toContain('unknown flag: --no-such-flag');
    // The control-plane role's undo (an engine contract) ran on that host, and the host's error says so.
    const undone =
      'The change is undone on this host: the last good kube-apiserver.yaml (from /etc/kubernetes/manifests-last-good) is back and the control plane is ready again; no other control plane was touched.';
    const undo = parseEvents(refused.stdout).filter((e) => e['type'] === 'undo-result') as { host: string; undo: string; status: string; summary?: string }[];
    expect(undo.map((e) => [e.host, e.undo, e.status])).toEqual([[`${NAME}1`, 'put back the last good manifests', 'changed']]);
    expect(undo[0]?.summary).toContain(undone);
    const hostFailed = parseEvents(refused.stdout).find((e) => e['type'] === 'host-failed') as { error: string } | undefined;
    expect(hostFailed?.error).toContain('unknown flag: --no-such-flag');
    expect(hostFailed?.error).toContain(undone);
    expect(await manifestSums()).toEqual(before);
    expect(
      parseEvents(refused.stdout)
        .filter((e) => e['play'] === 'control plane' && e['type'] === 'host-start')
        .map((e) => e['host']),
    ).toEqual([`${NAME}1`]);

    // The flag fixed, and a name added to the API server's certificate: apply reissues it and
    // rolls both out one control plane at a time, each back before the next.
    withApiServerArgs({ 'event-ttl': '2h0m0s' }, ['api.kceha.example', '10.231.6.100']);
    // Shown first, on every control plane, with nothing changed.
    const flagPreview = await kcluster(['apply', '-i', inventory, '--check', '--diff']);
    expect(flagPreview.code, flagPreview.stderr).toBe(3);
    expect(flagPreview.stdout.match(/^ *\+ +- "--event-ttl=2h0m0s"$/gm) ?? [], flagPreview.stdout.slice(-3000)).toHaveLength(3);
    expect(flagPreview.stdout).toContain('/etc/kubernetes/pki/apiserver.crt');
    expect(await manifestSums()).toEqual(before);
    const rolled = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    await apiPolling.stop();
    expect(rolled.code, rolled.stderr).toBe(0);
    // Before the first control plane changes, one etcd snapshot, on it, copied to the controller.
    const snapshots = parseEvents(rolled.stdout).filter(
      (e) => e['type'] === 'task-result' && e['task'] === 'etcd snapshot before the first control-plane change',
    ) as { host: string; status: string; summary: string }[];
    expect(snapshots.map((e) => [e.host, e.status])).toEqual([[`${NAME}1`, 'changed']]);
    const snapshotFile = /etcd snapshot (\S+) from /.exec(snapshots[0]!.summary)?.[1] ?? '';
    expect(statSync(snapshotFile).size).toBeGreaterThan(100_000);
    // Per control plane: the certificate and its key, the manifest, and (usually) the wait for its new pod.
    const changedBesidesSnapshot = (h: { host: string; changed: number }) => h.changed - (h.host === `${NAME}1` ? 1 : 0);
    expect(recapOf(rolled.stdout).map((h) => [h.host, changedBesidesSnapshot(h) >= 3 && changedBesidesSnapshot(h) <= 4 ? 'changed' : h.changed])).toEqual([
      ...cps.map((h) => [h, 'changed']),
      [`${NAME}4`, 0],
    ]);
    for (const h of cps) {
      const sans = new X509Certificate(await ssh(h, 'cat /etc/kubernetes/pki/apiserver.crt')).subjectAltName ?? '';
      expect(sans).toContain('DNS:api.kceha.example');
      expect(sans).toContain('IP Address:10.231.6.100');
    }
    const order = parseEvents(rolled.stdout).filter((e) => e['play'] === 'control plane' && (e['type'] === 'host-start' || e['type'] === 'host-end'));
    expect(order.map((e) => `${String(e['type'])} ${String(e['host'])}`)).toEqual(cps.flatMap((h) => [`host-start ${h}`, `host-end ${h}`]));
    for (const h of cps) expect(await ssh(h, 'ps -eo args | grep "^kube-apiserver "')).toContain(' --event-ttl=2h0m0s');
    console.log(
      `ha: a refused API server flag undone, then a flag rolled out: ${answers.samples} samples, ${answers.someDown} with a server down, ${answers.noneAnswered} with none answering`,
    );
    expect(answers.someDown).toBeGreaterThan(0);
    expect(answers.noneAnswered).toBe(0);
    const again = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(recapOf(again.stdout).map((h) => h.changed)).toEqual([0, 0, 0, 0]);

    // For one host: a kubelet setting (vars.kubeletConfig), a label and a taint on its Node.
    // Only that host's kubelet changes; the first control plane sets the label and the taint.
    const current = parse(readFileSync(inventory, 'utf8')) as { hosts: { name: string; vars?: Record<string, unknown> }[] };
    const worker = current.hosts.find((h) => h.name === `${NAME}4`)!;
    worker.vars = {
      ...worker.vars,
      kubeletConfig: { maxPods: 150 },
      nodeLabels: { tier: 'gpu' },
      nodeTaints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    };
    writeFileSync(inventory, stringify(current));
    const tunedPreview = await kcluster(['apply', '-i', inventory, '--check', '--diff']);
    expect(tunedPreview.code, tunedPreview.stderr).toBe(3);
    expect(tunedPreview.stdout).toMatch(/^ *\+maxPods: 150$/m);
    expect(tunedPreview.stdout).toContain(`${NAME}4: label tier=gpu, taint dedicated=gpu:NoSchedule`);
    expect(await ssh(`${NAME}4`, 'cat /var/lib/kubelet/config.yaml')).not.toContain('maxPods: 150');
    const tuned = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(tuned.code, tuned.stderr).toBe(0);
    expect(recapOf(tuned.stdout).map((h) => [h.host, h.changed > 0])).toEqual([
      [`${NAME}1`, true],
      [`${NAME}2`, false],
      [`${NAME}3`, false],
      [`${NAME}4`, true],
    ]);
    // After the lab's own eviction thresholds (the lab inventory's vars.kubeletConfig), merged with the host's.
    expect(await ssh(`${NAME}4`, 'cat /var/lib/kubelet/config.yaml')).toMatch(
      /^# The operator's settings \(vars\.kubeletConfig\):\nevictionHard:\n( {2}.*\n)+imageGCHighThresholdPercent: 100\nimageGCLowThresholdPercent: 99\nmaxPods: 150$/m,
    );
    await until('the worker reports 150 pods as its capacity', 120_000, async () =>
      (await kubectl(adminFile, 'get', 'node', `${NAME}4`, '-o', 'jsonpath={.status.capacity.pods}')).trim() === '150' ? true : undefined,
    );
    type NodeView = { metadata: { labels: Record<string, string> }; spec: { taints?: { key: string; value?: string; effect: string }[] } };
    const node4 = async (): Promise<NodeView> => JSON.parse(await kubectl(adminFile, 'get', 'node', `${NAME}4`, '-o', 'json')) as NodeView;
    expect((await node4()).metadata.labels['tier']).toBe('gpu');
    expect((await node4()).spec.taints).toContainEqual({ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' });
    // Taken off again when they leave the inventory; a label somebody else set stays.
    await kubectl(adminFile, 'label', 'node', `${NAME}4`, 'team=a');
    worker.vars = { ...worker.vars, nodeLabels: {}, nodeTaints: [] };
    writeFileSync(inventory, stringify(current));
    const untouched = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(untouched.code, untouched.stderr).toBe(0);
    expect(recapOf(untouched.stdout).map((h) => [h.host, h.changed > 0])).toEqual([
      [`${NAME}1`, true],
      [`${NAME}2`, false],
      [`${NAME}3`, false],
      [`${NAME}4`, false],
    ]);
    const after = await node4();
    expect(after.metadata.labels['tier']).toBeUndefined();
    expect(after.metadata.labels['team']).toBe('a');
    expect(after.spec.taints ?? []).not.toContainEqual(expect.objectContaining({ key: 'dedicated' }));

    // The operator's settings on the running cluster, under traffic (a NodePort Service on the
    // worker and every API server polled): a feature gate, a registry mirror with credentials
    // (pulled through the HTTP proxy), OIDC (a test issuer on the bridge), a file a flag reads
    // (an egress selector configuration), a stub domain (a test DNS server on the bridge) and the
    // operator's own manifests, shown by --check --diff first, then applied.
    const busybox = bundleEntries().find((a) => a.name === 'busybox')!;
    await ssh(`${NAME}4`, 'ctr -n k8s.io images import -', readFileSync(join(bundleDir(), busybox.path)));
    const app = join(work, 'web.yaml');
    writeFileSync(app, webDeploymentBehindNodePort(busybox.reference!));
    await kubectl(adminFile, 'apply', '-f', app);
    await kubectl(adminFile, 'rollout', 'status', 'deployment/web', '--timeout=180s');
    await until('the web Service answers on the worker', 60_000, () => answersHello('http://10.231.6.14:30080/'));
    const password = randomBytes(12).toString('hex');
    const registry = await startTestRegistry(join(bundleDir(), busybox.path), '10.231.6.1', 'kc-e2e', password);
    const credentials = { KC_E2E_REGISTRY_USER: 'kc-e2e', KC_E2E_REGISTRY_PASSWORD: password };
    const issuer = await startTestOidcIssuer('10.231.6.1');
    const dns = await startTestDnsServer('10.231.6.1', 'corp.kcluster.test', '10.231.6.77');
    const registryHost = new URL(registry.url).host;
    const egress = join(work, 'egress-selector.yaml');
    writeFileSync(
      egress,
      'apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n  - name: cluster\n    connection: { proxyProtocol: Direct }\n',
    );
    const egressOnHost = '/etc/kubernetes/extra/kube-apiserver/egress-selector.yaml';
    const own = join(work, 'manifests');
    mkdirSync(own, { recursive: true });
    writeFileSync(join(own, '10-namespace.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata: { name: kc-own }\n');
    const settings = 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings, namespace: kc-own }\ndata: { greeting: hello }\n';
    const probe = `apiVersion: apps/v1
kind: Deployment
metadata: { name: probe, namespace: kc-own }
spec:
  replicas: 1
  selector: { matchLabels: { app: probe } }
  template:
    metadata: { labels: { app: probe } }
    spec:
      containers:
        - name: probe
          image: registry.kcluster.test/kcluster-e2e/probe:1
          command: [/bin/busybox, sleep, "86400"]
`;
    writeFileSync(join(own, '20-apps.yaml'), `${settings}---\n${probe}`);
    const settled = parse(readFileSync(inventory, 'utf8')) as { cluster: Record<string, unknown>; vars?: Record<string, unknown> };
    // The default wait again (the refused flag above was given 60 s to fail fast): a feature gate
    // restarts every component and kubelet of a control plane at once, slower on a busy machine.
    const { readyTimeoutSeconds: _fast, ...defaultVars } = settled.vars ?? {};
    settled.vars = defaultVars;
    const apiServer = settled.cluster['apiServer'] as { extraArgs: Record<string, string> };
    settled.cluster = {
      ...settled.cluster,
      apiServer: {
        ...apiServer,
        extraArgs: { ...apiServer.extraArgs, 'egress-selector-config-file': egressOnHost },
        extraFiles: [egress],
        oidc: {
          issuerUrl: issuer.issuerUrl,
          clientId: 'kcluster-e2e',
          usernameClaim: 'sub',
          usernamePrefix: 'oidc:',
          groupsClaim: 'groups',
          groupsPrefix: 'oidc:',
          caFile: issuer.caFile,
        },
      },
      dns: { stubDomains: { 'corp.kcluster.test': [`${dns.address}:${dns.port}`] } },
      featureGates: { ContainerCheckpoint: false },
      registries: { 'registry.kcluster.test': { mirrors: [registry.url], usernameEnv: 'KC_E2E_REGISTRY_USER', passwordEnv: 'KC_E2E_REGISTRY_PASSWORD' } },
      manifests: [own],
    };
    writeFileSync(inventory, stringify(settled));
    const preview = await kcluster(['apply', '-i', inventory, '--check', '--diff'], credentials);
    expect(preview.code, preview.stderr).toBe(3);
    // Diffs are indented under their task line.
    expect(preview.stdout).toMatch(/^ *\+ +- "--feature-gates=ContainerCheckpoint=false"$/m);
    expect(preview.stdout).toContain('+  ContainerCheckpoint: false');
    expect(preview.stdout).toMatch(
      /create \/etc\/containerd\/certs\.d\/registry\.kcluster\.test\/hosts\.toml \(mode 0600, root:root; \d+ bytes, secret: content not shown\)/,
    );
    expect(preview.stdout).toContain('apply 3 objects (server-side)');
    expect(preview.stdout).toContain('+kind: Deployment');
    expect(preview.stdout.match(/^ *\+ +- "--oidc-issuer-url=https:\/\/10\.231\.6\.1:\d+"$/gm) ?? []).toHaveLength(3);
    expect(preview.stdout).toMatch(
      /create \/etc\/kubernetes\/extra\/kube-apiserver\/egress-selector\.yaml \(mode 0600, root:root; \d+ bytes, secret: content not shown\)/,
    );
    expect(preview.stdout).toContain('re-apply coredns (server-side apply)');
    expect(preview.stdout).not.toContain('the text last applied was not recorded');
    // The Corefile's new server block, as lines added to the text kcluster last applied.
    expect(preview.stdout).toMatch(/^ *\+ +corp\.kcluster\.test:1053 \{$/m);
    expect(preview.stdout).toMatch(new RegExp(`^ *\\+ +forward \\. ${dns.address.replaceAll('.', '\\.')}:${dns.port}$`, 'm'));
    expect(preview.stdout).not.toContain(password);
    expect(preview.stdout).not.toContain(Buffer.from(`kc-e2e:${password}`).toString('base64'));
    expect((await ssh(`${NAME}4`, 'test -e /etc/containerd/certs.d/registry.kcluster.test/hosts.toml && echo present || echo absent')).trim()).toBe('absent');
    const missing = await kcluster(['apply', '-i', inventory]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cluster\.registries\.registry\.kcluster\.test\.usernameEnv: the environment variable KC_E2E_REGISTRY_USER is not set/);

    const servicePolling = poller('http://10.231.6.14:30080/');
    const settingsPolling = apiServersPoller(
      labDir,
      [11, 12, 13].map((i) => `10.231.6.${i}`),
    );
    const configured = await kcluster(['apply', '-i', inventory, '--output', 'json'], credentials);
    await servicePolling.stop();
    await settingsPolling.stop();
    expect(configured.code, configured.stderr).toBe(0);
    expect(configured.stdout).not.toContain(password);
    console.log(
      `ha: a feature gate, a registry mirror behind a proxy, OIDC, an extra file, a stub domain and own manifests applied: the Service answered ${servicePolling.counts.ok} times, failed ${servicePolling.counts.failed}; API servers: ${settingsPolling.answers.samples} samples, ${settingsPolling.answers.noneAnswered} with none answering`,
    );
    expect(servicePolling.counts.failures).toEqual([]);
    expect(settingsPolling.answers.noneAnswered).toBe(0);
    for (const h of cps) {
      const args = await ssh(h, 'ps -eo args | grep "^kube-apiserver "');
      expect(args).toContain(' --feature-gates=ContainerCheckpoint=false');
      // The API server started with the file its flag names (it refuses to start without it).
      expect(args).toContain(` --egress-selector-config-file=${egressOnHost}`);
      expect(args).toContain(` --oidc-issuer-url=${issuer.issuerUrl}`);
      expect((await ssh(h, `stat -c %a ${egressOnHost}`)).trim()).toBe('600');
    }
    // OIDC: an ID token from the test issuer is a user of the cluster, through every API server.
    const oidcConfig = writeKubeconfigAs(adminFile, join(work, 'oidc.conf'), { token: issuer.token('kcluster-e2e', 'alice', ['dev']) });
    const whoami = await until('the OIDC token is accepted', 120_000, async () => {
      const out = await kubectl(oidcConfig, 'auth', 'whoami', '-o', 'json').catch(() => '');
      return out.includes('oidc:alice') ? (JSON.parse(out) as { status: { userInfo: { username: string; groups: string[] } } }).status.userInfo : undefined;
    });
    expect(whoami.username).toBe('oidc:alice');
    expect(whoami.groups).toContain('oidc:dev');
    expect(issuer.requests.keys).toBeGreaterThan(0);
    expect(await ssh(`${NAME}4`, 'cat /var/lib/kubelet/config.yaml')).toMatch(/^featureGates:\n {2}ContainerCheckpoint: false$/m);
    expect((await ssh(`${NAME}4`, 'stat -c %a /etc/containerd/certs.d/registry.kcluster.test/hosts.toml')).trim()).toBe('600');
    await kubectl(adminFile, '-n', 'kc-own', 'rollout', 'status', 'deployment/probe', '--timeout=180s');
    // Pulled through the mirror with the credentials: its manifest came from the test registry,
    // which refused nothing. (Its layers are busybox's, which the worker already holds from the
    // web Deployment's import: containerd fetches no blob it has by digest.)
    expect(registry.served.manifests).toBeGreaterThan(0);
    expect(registry.served.unauthorized).toBe(0);
    expect(await ssh(`${NAME}4`, 'crictl images -o json')).toContain('registry.kcluster.test/kcluster-e2e/probe:1');
    // ... and through the HTTP proxy, which nothing else went through since the install.
    for (const unit of ['containerd', 'kubelet'])
      expect(await ssh(`${NAME}4`, `systemctl show ${unit} -p Environment`)).toContain(`HTTP_PROXY=${httpProxy.url}`);
    expect(httpProxy.destinations).toContain(registryHost);
    expect([...new Set(httpProxy.destinations)]).toEqual([registryHost]);
    console.log(`ha: through the HTTP proxy since the install: ${httpProxy.destinations.length} requests, all to the registry ${registryHost}`);
    expect(await kubectl(adminFile, '-n', 'kc-own', 'get', 'configmap', 'settings', '-o', 'jsonpath={.data.greeting}')).toBe('hello');
    // The stub domain: a pod's lookup goes through CoreDNS to the test DNS server.
    const answer = await until('a name of the stub domain resolves in a pod', 120_000, async () => {
      const out = await kubectl(adminFile, '-n', 'kc-own', 'exec', 'deploy/probe', '--', '/bin/busybox', 'nslookup', 'web.corp.kcluster.test').catch(() => '');
      return out.includes('10.231.6.77') ? out : undefined;
    });
    expect(answer).toContain('10.231.6.77');
    expect(dns.asked).toContain('web.corp.kcluster.test');
    // An object taken out of the manifests is deleted from the cluster; the others stay.
    writeFileSync(join(own, '20-apps.yaml'), probe);
    const pruned = await kcluster(['apply', '-i', inventory, '--output', 'json'], credentials);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(changesIn(pruned.stdout)).toContain('delete ConfigMap kc-own/settings (v1) (no longer in cluster.manifests)');
    await until('the ConfigMap is gone', 60_000, async () =>
      (await kubectl(adminFile, '-n', 'kc-own', 'get', 'configmap', '-o', 'name')).includes('settings') ? undefined : true,
    );
    expect(await kubectl(adminFile, '-n', 'kc-own', 'get', 'deployment', 'probe', '-o', 'name')).toContain('deployment.apps/probe');
    const settledAgain = await kcluster(['apply', '-i', inventory, '--output', 'json'], credentials);
    expect(settledAgain.code, settledAgain.stderr).toBe(0);
    expect(recapOf(settledAgain.stdout).map((h) => h.changed)).toEqual([0, 0, 0, 0]);
    await registry.close();
    await issuer.close();
    await dns.close();
    await httpProxy.close();

    await ssh(`${NAME}1`, 'systemctl stop kubelet; crictl stop $(crictl ps -q) >/dev/null 2>&1; systemctl stop containerd; pkill containerd-shim || true');
    await until(
      'the first control plane is down',
      60_000,
      async () =>
        await run('bash', ['-c', 'exec 3<>/dev/tcp/10.231.6.11/6443']).then(
          () => undefined,
          () => true,
        ),
    );
    const firstDownAt = Date.now();
    // Writes need etcd quorum (2 of 3): they still work through the second control plane.
    await until('a write through cp2', 120_000, async () =>
      (await kubectl(viaCp2, 'create', 'configmap', 'ha-probe', '--from-literal=k=v')).includes('created') ? true : undefined,
    );
    expect(await kubectl(viaCp2, 'get', 'configmap', 'ha-probe', '-o', 'jsonpath={.data.k}')).toBe('v');
    // The worker keeps renewing its lease through its proxy: a renewal made after the first
    // control plane went down reached another API server (the kubelet renews every 10 s), so
    // there is no need to sit out the node monitor's grace period to know it stays Ready.
    const renewedAfter = async (moment: number) => {
      const lease = JSON.parse(await kubectl(viaCp2, 'get', 'lease', '-n', 'kube-node-lease', `${NAME}4`, '-o', 'json')) as { spec: { renewTime: string } };
      return Date.parse(lease.spec.renewTime) > moment ? true : undefined;
    };
    await until('the worker renews its lease with the first control plane down', 60_000, () => renewedAfter(firstDownAt + 1_000));
    const ready = await readyNodes(viaCp2);
    expect(ready).toContain(`${NAME}4`);

    // The first control plane is not special: left out with --limit, the once-per-cluster steps
    // (addons, their check, the operator's manifests) are planned on the second.
    const limited = await kcluster(['apply', '-i', inventory, '--check', '--limit', `!${NAME}1`, '--output', 'json'], credentials);
    expect([0, 3], limited.stderr + limited.stdout.slice(-2000)).toContain(limited.code);
    expect(limited.stderr).toContain(`run on ${NAME}2: --limit leaves out ${NAME}1`);
    const once = parseEvents(limited.stdout).filter(
      (e) => e['type'] === 'play-start' && ['addons', 'addons running', 'operator manifests'].includes(String(e['play'])),
    );
    expect(once.map((e) => `${String(e['play'])}: ${JSON.stringify(e['hosts'])}`)).toEqual(
      ['addons', 'addons running', 'operator manifests'].map((p) => `${p}: ["${NAME}2"]`),
    );
  });
});
