// Inventory errors: every problem at once, each with its exact file:line:col and path.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';

const home = mkdtempSync(join(tmpdir(), 'kc-home-'));
const env = { SSH_AUTH_SOCK: '/tmp/agent.sock' };

function errorsOf(text: string): string[] {
  const result = parseInventory(text, 'inv.yaml', { env, homeDir: home });
  return result.ok ? [] : result.errors.map(formatDiagnostic);
}

function warningsOf(text: string): string[] {
  return parseInventory(text, 'inv.yaml', { env, homeDir: home }).warnings.map(formatDiagnostic);
}

const host = (extra = '') => `hosts:\n  - name: cp1\n    address: 10.0.0.1\n    roles: [control-plane]\n${extra}`;

describe('inventory diagnostics', () => {
  const cases: [string, string, string[]][] = [
    ['YAML syntax error', 'hosts:\n  - name: cp1\n   address: x\n', ['inv.yaml:3:1: YAML syntax: Sequence item without - indicator']],
    ['empty document', '', ['inv.yaml:1:1: the inventory is empty: it needs at least `hosts:`']],
    ['no hosts key', 'cluster:\n  name: a\n', ['inv.yaml:1:1: missing required key "hosts"']],
    ['port not an integer', host('    port: "22a"\n'), ['inv.yaml:5:11: hosts[0].port: must be an integer 1-65535 (got "22a")']],
    ['port out of range', host('    port: 70000\n'), ['inv.yaml:5:11: hosts[0].port: must be an integer 1-65535 (got 70000)']],
    [
      'unknown host key with suggestion',
      'hosts:\n  - name: cp1\n    adress: 10.0.0.1\n    roles: [control-plane]\n',
      [
        'inv.yaml:2:5: hosts[0]: missing required key "address"',
        'inv.yaml:3:5: hosts[0].adress: unknown key "adress"; did you mean "address"? (allowed: name, address, ipv6Address, arch, port, user, keyFile, agent, keyPassphraseEnv, passwordEnv, become, bastion, roles, vars)',
      ],
    ],
    [
      'unknown top-level key',
      `${host()}clustr:\n  name: a\n`,
      ['inv.yaml:5:1: clustr: unknown key "clustr"; did you mean "cluster"? (allowed: cluster, ssh, stateDir, vars, groups, hosts)'],
    ],
    [
      'bad role with enum list',
      'hosts:\n  - name: cp1\n    address: 10.0.0.1\n    roles: [control-plane, master]\n',
      ['inv.yaml:4:28: hosts[0].roles[1]: must be one of control-plane, worker, etcd (got "master")'],
    ],
    ['cni typo', `cluster:\n  cni: flanel\n${host()}`, ['inv.yaml:2:8: cluster.cni: must be one of flannel, none (got "flanel"); did you mean "flannel"?']],
    [
      'version without v',
      `cluster:\n  kubernetesVersion: "1.34.2"\n${host()}`,
      ['inv.yaml:2:22: cluster.kubernetesVersion: must be a version such as v1.35.8 (got "1.34.2")'],
    ],
    [
      'host bits in CIDR',
      `cluster:\n  podCIDR: 10.244.0.1/16\n${host()}`,
      ['inv.yaml:2:12: cluster.podCIDR: host bits are set: did you mean 10.244.0.0/16? (got "10.244.0.1/16")'],
    ],
    [
      'invalid CIDR',
      `cluster:\n  serviceCIDR: 10.96.0.0\n${host()}`,
      ['inv.yaml:2:16: cluster.serviceCIDR: must be an IPv4 CIDR such as 10.244.0.0/16 (got "10.96.0.0")'],
    ],
    [
      'overlapping CIDRs',
      `cluster:\n  podCIDR: 10.0.0.0/8\n  serviceCIDR: 10.96.0.0/12\n${host()}`,
      ['inv.yaml:3:16: cluster.serviceCIDR: pod CIDR 10.0.0.0/8 and service CIDR 10.96.0.0/12 overlap: choose disjoint ranges'],
    ],
    [
      'duplicate names and addresses',
      `${host()}  - name: cp1\n    address: 10.0.0.1\n`,
      [
        'inv.yaml:5:11: hosts[1].name: duplicate host name "cp1" (also hosts[0])',
        'inv.yaml:6:14: hosts[1].address: duplicate address 10.0.0.1:22 (also hosts[0])',
      ],
    ],
    [
      'no control plane',
      'hosts:\n  - name: w1\n    address: 10.0.0.1\n    roles: [worker]\n',
      ['inv.yaml:2:3: hosts: no host has the control-plane role: give at least one host `roles: [control-plane]`'],
    ],
    [
      'secret instead of env var name',
      host('    become: { passwordEnv: "hunter2!" }\n'),
      [
        'inv.yaml:5:28: hosts[0].become.passwordEnv: must be the NAME of an environment variable (e.g. KCLUSTER_SUDO_PASSWORD), never the secret itself (got "hunter2!")',
      ],
    ],
    [
      'bad duration',
      `ssh:\n  connectTimeout: 10x\n${host()}`,
      ['inv.yaml:2:19: ssh.connectTimeout: must be a duration such as 500ms, 10s, 2m, or an integer of milliseconds (got "10x")'],
    ],
    [
      'host name with shell syntax',
      'hosts:\n  - name: "x\'; touch /tmp/pwned #"\n    address: 10.0.0.1\n    roles: [control-plane]\n',
      [
        `inv.yaml:2:11: hosts[0].name: must be a lowercase DNS name (letters, digits, '-' and '.'), as Kubernetes node names are (got "x'; touch /tmp/pwned #")`,
      ],
    ],
    [
      'address with $()',
      'hosts:\n  - name: cp1\n    address: "$(touch /tmp/pwned)"\n    roles: [control-plane]\n',
      ['inv.yaml:3:14: hosts[0].address: must be an IP address or DNS name (got "$(touch /tmp/pwned)")'],
    ],
    [
      'unknown bastion host',
      host('    bastion: jumpy\n  - name: jump\n    address: 10.0.0.9\n'),
      ['inv.yaml:5:14: hosts[0].bastion: no host named "jumpy"; did you mean "jump"?'],
    ],
    ['own bastion', host('    bastion: cp1\n'), ['inv.yaml:5:14: hosts[0].bastion: a host cannot be its own bastion']],
    [
      'members of a built-in group',
      `groups:\n  worker:\n    hosts: [cp1]\n${host()}`,
      ['inv.yaml:3:12: groups.worker.hosts: "worker" is a built-in group: its members come from each host\'s roles; set roles on the hosts instead'],
    ],
    [
      'unknown host in a custom group',
      `groups:\n  web:\n    hosts: [cp2]\n${host()}`,
      ['inv.yaml:3:13: groups.web.hosts[0]: no host named "cp2"; did you mean "cp1"?'],
    ],
    [
      'cluster name upper case',
      `cluster:\n  name: Demo\n${host()}`,
      ['inv.yaml:2:9: cluster.name: must be a lowercase name of letters, digits and \'-\' (max 63) (got "Demo")'],
    ],
    ['wrong type for vars', `vars: [1, 2]\n${host()}`, ['inv.yaml:1:7: vars: must be a map of variable names to values (got [1,2])']],
  ];
  it.each(cases)('%s', (_name, text, expected) => {
    expect(errorsOf(text)).toEqual(expected);
  });

  it('reports schema and semantic errors of one file together', () => {
    const errors = errorsOf(`cluster:\n  podCIDR: 10.244.0.1/16\n${host('    port: 0\n')}  - name: cp1\n    address: 10.0.0.2\n`);
    expect(errors).toEqual([
      'inv.yaml:2:12: cluster.podCIDR: host bits are set: did you mean 10.244.0.0/16? (got "10.244.0.1/16")',
      'inv.yaml:7:11: hosts[0].port: must be an integer 1-65535 (got 0)',
      'inv.yaml:8:11: hosts[1].name: duplicate host name "cp1" (also hosts[0])',
    ]);
  });

  it('warns about an even etcd member count and a host inside the pod CIDR', () => {
    const text =
      'hosts:\n  - name: cp1\n    address: 10.244.0.5\n    roles: [control-plane]\n  - name: cp2\n    address: 10.0.0.2\n    roles: [control-plane]\n';
    expect(warningsOf(text)).toEqual([
      'inv.yaml:2:3: warning: hosts: 2 etcd members: an even count tolerates no more failures than 1; use an odd number',
      'inv.yaml:3:14: warning: hosts[0].address: 10.244.0.5 lies inside the pod CIDR 10.244.0.0/16: traffic to this host would be routed into the cluster',
    ]);
  });

  it('says when there is no way to log in', () => {
    const result = parseInventory(host(), 'inv.yaml', { env: {}, homeDir: home });
    expect(result.ok ? [] : result.errors.map(formatDiagnostic)).toEqual([
      'inv.yaml:2:3: hosts: no way to log in to cp1: no keyFile, agent or passwordEnv is set, SSH_AUTH_SOCK is not set, and neither ~/.ssh/id_ed25519 nor ~/.ssh/id_rsa exists; set ssh.keyFile (or keyFile on a host), agent: true with a running ssh-agent, or passwordEnv',
    ]);
  });

  it('reads a missing file as a diagnostic, not a crash', async () => {
    const { loadInventory } = await import('../../../src/kubernetes/inventory/load-inventory.js');
    const result = await loadInventory(join(home, 'nope.yaml'));
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : formatDiagnostic(result.errors[0]!)).toBe(`${join(home, 'nope.yaml')}:1:1: cannot read the inventory: no such file`);
  });

  it('accepts the shipped example', async () => {
    const { loadInventory } = await import('../../../src/kubernetes/inventory/load-inventory.js');
    writeFileSync(join(home, 'key'), 'x');
    const result = await loadInventory('inventory.example.yaml', { env, homeDir: home });
    expect(result.ok ? 'ok' : result.errors.map(formatDiagnostic)).toBe('ok');
  });
});
