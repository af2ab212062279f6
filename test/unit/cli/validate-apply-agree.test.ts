// validate and apply agree on every input error (issue 29): each refusal apply's input stage
// can raise before touching a host (every `throw new InputError` of checkClusterInputs and
// what it calls, and the state folder's place that the lock checks) has a minimal inventory
// here that triggers it; `kcluster validate` must exit 2 with the same message as
// `kcluster apply --check`, which reaches no host (the refusals come before SSH: the hosts are
// at addresses nothing answers on, and the test would fail on a connection attempt's message).
//
// Not here, because validate decides from the controller alone and never asks them: a
// running cluster's answers (another kubernetesVersion: kcluster upgrade; a control plane
// apply may not add), the state lock held by another run, release downloads that fail and
// bundle pieces whose size or sha256 is wrong (`kcluster artifacts verify` checks those).
// What the loader refuses (no control plane, an audit policy file that is not there) both
// commands print the same way (the cases marked "the loader").
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { writeFakeBundle } from '../support/fake-bundle.js';
import { loadInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-validate-apply-'));
const HOSTS = 'hosts:\n  - { name: cp1, address: 192.0.2.1, roles: [control-plane] }\n  - { name: w1, address: 192.0.2.2, roles: [worker] }\n';
const bundle = writeFakeBundle(join(root, 'bundle'), [loadInventoryText(root, `cluster:\n  artifacts: { source: bundle, bundle: /x }\n${HOSTS}`)]);
writeFileSync(join(root, 'plain-file'), 'not a bundle\n');
mkdirSync(join(root, 'empty-folder'));
const noPiece = join(root, 'no-piece');
mkdirSync(noPiece);
writeFileSync(join(noPiece, 'kcluster-bundle.json'), JSON.stringify({ kind: 'kcluster-bundle', formatVersion: 1, arch: 'amd64', artifacts: [] }));
writeFileSync(join(root, 'bad-policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Everything\n');
writeFileSync(join(root, 'bad-manifest.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
writeFileSync(join(root, 'not-pem.crt'), 'hello\n');
writeFileSync(join(root, 'state-file'), 'a file where the state folder goes\n');

/** An inventory whose every other input is good: the cluster block plus a bundle that lists every piece. */
function inventory(cluster: string, { artifacts = `  artifacts: { source: bundle, bundle: ${bundle} }\n`, top = '' } = {}): string {
  return `${top}cluster:\n${artifacts}${cluster}${HOSTS}`;
}

const CASES: readonly (readonly [string, string, RegExp])[] = [
  [
    'no control plane (the loader)',
    `cluster:\n  artifacts: { source: bundle, bundle: ${bundle} }\nhosts:\n  - { name: w1, address: 192.0.2.2, roles: [worker] }\n`,
    /no host has the control-plane role/,
  ],
  [
    'a flag kcluster sets, in extraArgs',
    inventory('  apiServer:\n    extraArgs: { etcd-servers: https://x:2379 }\n'),
    /cluster\.apiServer\.extraArgs\.etcd-servers: /,
  ],
  ['a kubelet field kcluster sets', inventory('', { top: 'vars:\n  kubeletConfig: { clusterDNS: [10.0.0.10] }\n' }), /vars\.kubeletConfig\.clusterDNS: /],
  ['a kube-proxy field kcluster sets', inventory('  kubeProxy:\n    config: { clusterCIDR: 10.0.0.0/8 }\n'), /cluster\.kubeProxy\.config\.clusterCIDR: /],
  ['an unknown kubelet field', inventory('', { top: 'vars:\n  kubeletConfig: { maxpods: 150 }\n' }), /did you mean "maxPods"/],
  [
    'an audit policy the API server refuses',
    inventory(`  audit: { policyFile: ${join(root, 'bad-policy.yaml')} }\n`),
    /would stop the API server from starting/,
  ],
  [
    'an audit policy file that is not there (the loader)',
    inventory(`  audit: { policyFile: ${join(root, 'missing-policy.yaml')} }\n`),
    /cluster\.audit\.policyFile: audit policy .* does not exist/,
  ],
  [
    'a bundle that is not there',
    inventory('', { artifacts: `  artifacts: { source: bundle, bundle: ${join(root, 'nowhere')} }\n` }),
    // At the key's file:line:col like every other inventory error (issue 44), and no flag validate and apply lack.
    /inventory\.yaml:\d+:\d+: cluster\.artifacts\.bundle: bundle .*nowhere: not found: set it to the folder `kcluster bundle build` printed/,
  ],
  [
    'a bundle that is a plain file',
    inventory('', { artifacts: `  artifacts: { source: bundle, bundle: ${join(root, 'plain-file')} }\n` }),
    /inventory\.yaml:\d+:\d+: cluster\.artifacts\.bundle: bundle .*plain-file: neither a directory nor a/,
  ],
  [
    'a bundle without its lock file',
    inventory('', { artifacts: `  artifacts: { source: bundle, bundle: ${join(root, 'empty-folder')} }\n` }),
    /kcluster-bundle\.json is missing/,
  ],
  [
    'a bundle without a piece the inventory needs',
    inventory('', { artifacts: `  artifacts: { source: bundle, bundle: ${noPiece} }\n` }),
    /not in bundle .*no-piece: rebuild the bundle/,
  ],
  [
    'registry credentials not set on the controller',
    inventory('  registries:\n    registry.example:\n      usernameEnv: KC_TEST_UNSET_USER_29\n      passwordEnv: KC_TEST_UNSET_PASSWORD_29\n'),
    /the environment variable KC_TEST_UNSET_USER_29 is not set/,
  ],
  ['a manifest that is not there', inventory(`  manifests: [${join(root, 'missing.yaml')}]\n`), /no such file or folder \(cluster\.manifests\)/],
  ['a manifest without a name', inventory(`  manifests: [${join(root, 'bad-manifest.yaml')}]\n`), /missing metadata/],
  ['a file a flag reads that is not there', inventory(`  apiServer:\n    extraFiles: [${join(root, 'missing.conf')}]\n`), /no such file on the controller/],
  [
    'an OIDC CA that is not a certificate',
    inventory(`  apiServer:\n    oidc: { issuerUrl: https://issuer.example, clientId: k, caFile: ${join(root, 'not-pem.crt')} }\n`),
    /not a PEM certificate/,
  ],
  [
    'a state folder that is a file',
    inventory('', { top: `stateDir: ${join(root, 'state-file')}\n` }),
    /inventory\.yaml:1:11: stateDir: the state folder .* is not a directory/,
  ],
  [
    'several at once: all of them, in one message',
    inventory(`  manifests: [${join(root, 'missing.yaml')}]\n`, {
      artifacts: `  artifacts: { source: bundle, bundle: ${noPiece} }\n`,
      top: 'vars:\n  kubeletConfig: { maxpods: 150 }\n',
    }),
    /maxPods[\s\S]*not in bundle[\s\S]*cluster\.manifests/,
  ],
];

describe('validate refuses what apply refuses about the inputs, in the same words', () => {
  it.each(CASES)('%s', async (_name, text, expected) => {
    const dir = mkdtempSync(join(root, 'case-'));
    const file = join(dir, 'inventory.yaml');
    // Each case has its own state folder (the lock, no PKI: a fresh install), unless it is the case.
    writeFileSync(file, text.includes('stateDir:') ? text : `stateDir: ${join(dir, 'state')}\n${text}`);
    const validate = await runCli(['validate', '-i', file]);
    const apply = await runCli(['apply', '--check', '-i', file]);
    expect(validate.out).toBe('');
    expect(validate.code).toBe(2);
    expect(validate.err).toMatch(expected);
    expect(apply.code).toBe(2);
    expect(apply.err).toBe(validate.err);
  });

  it('release mode without Go on the controller, with several control planes and no load balancer: both refuse kcluster-apiproxy, naming the ways out', async () => {
    const file = join(mkdtempSync(join(root, 'release-ha-')), 'inventory.yaml');
    const hosts =
      'hosts:\n  - { name: cp1, address: 192.0.2.1, roles: [control-plane] }\n  - { name: cp2, address: 192.0.2.3, roles: [control-plane] }\n  - { name: w1, address: 192.0.2.2, roles: [worker] }\n';
    writeFileSync(file, `stateDir: ./state\ncluster:\n  artifacts: { source: release }\n${hosts}`);
    const saved = process.env['KCLUSTER_GO'];
    process.env['KCLUSTER_GO'] = join(root, 'no-go-here', 'go');
    try {
      const validate = await runCli(['validate', '-i', file]);
      const apply = await runCli(['apply', '--check', '-i', file]);
      expect(validate.code).toBe(2);
      expect(validate.err).toMatch(
        /kcluster-apiproxy 2 .*no release publishes; kcluster builds it on this controller .*: install Go \(or point KCLUSTER_GO at it\), set cluster\.apiEndpoint\.host to your load balancer, or use source: bundle/,
      );
      expect(apply.code).toBe(2);
      expect(apply.err).toBe(validate.err);
    } finally {
      if (saved === undefined) delete process.env['KCLUSTER_GO'];
      else process.env['KCLUSTER_GO'] = saved;
    }
  });

  it('release mode with no imageRepository is valid, and apply --check goes past the input stage (to the downloads)', async () => {
    const file = join(mkdtempSync(join(root, 'release-')), 'inventory.yaml');
    // The release locations point at a loopback port nothing listens on: no traffic leaves the machine.
    writeFileSync(
      file,
      `stateDir: ./state\ncluster:\n  artifacts:\n    source: release\n    cacheDir: ./cache\n    mirrors: { "https://dl.k8s.io": "http://127.0.0.1:9/k8s", "https://github.com": "http://127.0.0.1:9/gh" }\n${HOSTS}`,
    );
    const validate = await runCli(['validate', '-i', file]);
    expect(validate).toMatchObject({ code: 0, err: '', out: `${file}: valid (2 hosts: 1 control planes, 1 workers, 1 etcd members)\n` });
    const apply = await runCli(['apply', '--check', '-i', file]);
    expect(apply.err).toMatch(/artifact problems? \(release downloads\); nothing was installed on any host/);
    expect(apply.err).not.toMatch(/imageRepository/);
  });

  it('a good inventory is valid, and apply --check goes past the inputs (to the bundle pieces, which this one lacks)', async () => {
    const file = join(mkdtempSync(join(root, 'good-')), 'inventory.yaml');
    writeFileSync(file, `stateDir: ./state\n${inventory('')}`);
    const validate = await runCli(['validate', '-i', file]);
    expect(validate).toMatchObject({ code: 0, err: '', out: `${file}: valid (2 hosts: 1 control planes, 1 workers, 1 etcd members)\n` });
    const apply = await runCli(['apply', '--check', '-i', file]);
    expect(apply.err).toMatch(/artifact problems? \(bundle .*\); nothing was installed on any host/);
  });
});
