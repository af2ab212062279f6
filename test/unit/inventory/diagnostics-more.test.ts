// More inventory errors, each with its exact file:line:col and path: YAML problems, unions,
// references between hosts and groups, the login fallback, and fixture files read from disk.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, loadInventory, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { compileInventorySchema, schemaErrors } from '../../../src/kubernetes/inventory/schema-diagnostics.js';

const home = mkdtempSync(join(tmpdir(), 'kc-home-'));
const env = { SSH_AUTH_SOCK: '/tmp/agent.sock' };
const cp = '  - name: cp1\n    address: 10.0.0.1\n    roles: [control-plane]\n';

function diagnosticsOf(text: string, options: { env?: NodeJS.ProcessEnv } = {}): { errors: string[]; warnings: string[] } {
  const result = parseInventory(text, 'inv.yaml', { env: options.env ?? env, homeDir: home });
  return { errors: result.ok ? [] : result.errors.map(formatDiagnostic), warnings: result.warnings.map(formatDiagnostic) };
}

describe('inventory diagnostics: YAML, unions, references', () => {
  const cases: [string, string, string[]][] = [
    ['duplicate key', `hosts:\n${cp}    address: 10.0.0.5\n`, ['inv.yaml:5:5: duplicate key "address": a key may appear only once in a map']],
    [
      'two YAML documents',
      `hosts:\n${cp}---\nhosts: []\n`,
      ['inv.yaml:5:1: the inventory must be a single YAML document: remove this "---" and what follows it, or merge the documents'],
    ],
    ['tab indentation', 'hosts:\n\t- name: cp1\n', ['inv.yaml:2:1: YAML syntax: tabs cannot indent YAML; use spaces']],
    ['a scalar document', 'just words\n', ['inv.yaml:1:1: must be a map with at least `hosts:` (a list of hosts) (got "just words")']],
    ['hosts as a map', 'hosts: {}\n', ['inv.yaml:1:8: hosts: must be a list of at least one host (got {})']],
    ['empty host list', 'hosts: []\n', ['inv.yaml:1:8: hosts: must be a list of at least one host (got [])']],
    [
      'hosts written as bare names (no repeated noise from other checks)',
      'hosts:\n  - cp1\n  - cp2\n',
      [
        'inv.yaml:2:5: hosts[0]: must be a host: a map with at least `name` and `address` (got "cp1")',
        'inv.yaml:3:5: hosts[1]: must be a host: a map with at least `name` and `address` (got "cp2")',
      ],
    ],
    [
      'misspelt role reports once',
      'hosts:\n  - name: cp1\n    address: 10.0.0.1\n    roles: [control-plan]\n',
      ['inv.yaml:4:13: hosts[0].roles[0]: must be one of control-plane, worker, etcd (got "control-plan"); did you mean "control-plane"?'],
    ],
    ['boolean written as a word', `hosts:\n${cp}    agent: "yes"\n`, ['inv.yaml:5:12: hosts[0].agent: must be true or false (got "yes")']],
    [
      'become as a string',
      `hosts:\n${cp}    become: "yes"\n`,
      ['inv.yaml:5:13: hosts[0].become: must be true, false, or { method: sudo, passwordEnv: NAME } (got "yes")'],
    ],
    [
      'unknown key inside become',
      `hosts:\n${cp}    become: { methd: sudo }\n`,
      ['inv.yaml:5:15: hosts[0].become.methd: unknown key "methd"; did you mean "method"? (allowed: method, passwordEnv)'],
    ],
    [
      'unknown key inside an inline bastion',
      `hosts:\n${cp}    bastion: { address: 10.0.0.9, usr: jump }\n`,
      ['inv.yaml:5:35: hosts[0].bastion.usr: unknown key "usr"; did you mean "user"? (allowed: name, address, port, user, keyFile, agent)'],
    ],
    ['inline bastion without address', `hosts:\n${cp}    bastion: { user: jump }\n`, ['inv.yaml:5:14: hosts[0].bastion: missing required key "address"']],
    [
      'nested unknown key',
      `cluster:\n  apiEndpoint: { prot: 6443 }\nhosts:\n${cp}`,
      ['inv.yaml:2:18: cluster.apiEndpoint.prot: unknown key "prot"; did you mean "port"? (allowed: host, port, virtualIp)'],
    ],
    [
      'api endpoint port',
      `cluster:\n  apiEndpoint: { port: "6443x" }\nhosts:\n${cp}`,
      ['inv.yaml:2:24: cluster.apiEndpoint.port: must be an integer 1-65535 (got "6443x")'],
    ],
    [
      'fractional duration',
      `ssh:\n  connectTimeout: 1.5\nhosts:\n${cp}`,
      ['inv.yaml:2:19: ssh.connectTimeout: must be a duration such as 500ms, 10s, 2m, or an integer of milliseconds (got 1.5)'],
    ],
    [
      'version written as a number',
      `cluster:\n  kubernetesVersion: 1.34\nhosts:\n${cp}`,
      ['inv.yaml:2:22: cluster.kubernetesVersion: must be a version such as v1.35.8 (got 1.34)'],
    ],
    [
      'CIDR prefix too long',
      `cluster:\n  podCIDR: 10.244.0.0/33\nhosts:\n${cp}`,
      ['inv.yaml:2:12: cluster.podCIDR: prefix length must be 1-30 (got "10.244.0.0/33")'],
    ],
    [
      'passphrase and password env names at the ssh level',
      `ssh:\n  keyPassphraseEnv: "my pass"\n  passwordEnv: 1ABC\nhosts:\n${cp}`,
      [
        'inv.yaml:2:21: ssh.keyPassphraseEnv: must be the NAME of an environment variable (e.g. KCLUSTER_SUDO_PASSWORD), never the secret itself (got "my pass")',
        'inv.yaml:3:16: ssh.passwordEnv: must be the NAME of an environment variable (e.g. KCLUSTER_SUDO_PASSWORD), never the secret itself (got "1ABC")',
      ],
    ],
    [
      'host passwordEnv holding a secret',
      `hosts:\n${cp}    passwordEnv: "pa$$word"\n`,
      [
        'inv.yaml:5:18: hosts[0].passwordEnv: must be the NAME of an environment variable (e.g. KCLUSTER_SUDO_PASSWORD), never the secret itself (got "pa$$word")',
      ],
    ],
    [
      'chained bastions',
      `hosts:\n${cp}    bastion: j1\n  - name: j1\n    address: 10.0.0.2\n    bastion: j2\n  - name: j2\n    address: 10.0.0.3\n`,
      [
        'inv.yaml:5:14: hosts[0].bastion: "j1" is itself reached through a bastion: chains of bastions are not supported; name a bastion that is reachable directly',
      ],
    ],
    [
      'host named like a built-in group',
      `hosts:\n${cp}  - name: worker\n    address: 10.0.0.7\n`,
      ['inv.yaml:5:11: hosts[1].name: "worker" is the name of a built-in group: host selectors could not tell them apart; rename the host'],
    ],
    [
      'group named like a host',
      `groups:\n  cp1:\n    hosts: [cp1]\nhosts:\n${cp}`,
      ['inv.yaml:2:3: groups.cp1: group "cp1" has the name of a host: host selectors could not tell them apart; rename the group'],
    ],
    [
      'group name with spaces',
      `groups:\n  "web servers":\n    hosts: [cp1]\nhosts:\n${cp}`,
      ["inv.yaml:2:3: groups.web servers: must be a group name of letters, digits, '_', '.' and '-', starting with a letter or digit (got \"web servers\")"],
    ],
    [
      'unknown key in a group',
      `groups:\n  web:\n    host: [cp1]\nhosts:\n${cp}`,
      ['inv.yaml:3:5: groups.web.host: unknown key "host"; did you mean "hosts"? (allowed: hosts, vars)'],
    ],
    [
      'bundle source without a bundle',
      `cluster:\n  artifacts: { source: bundle }\nhosts:\n${cp}`,
      ['inv.yaml:2:14: cluster.artifacts: missing required key "bundle": source: bundle needs the path of the bundle (a directory or tarball)'],
    ],
    [
      'same address and port, different case',
      `hosts:\n  - { name: cp1, address: Node1.lan, roles: [control-plane] }\n  - { name: w1, address: node1.LAN }\n`,
      ['inv.yaml:3:26: hosts[1].address: duplicate address node1.lan:22 (also hosts[0])'],
    ],
  ];
  it.each(cases)('%s', (_name, text, expected) => {
    expect(diagnosticsOf(text).errors).toEqual(expected);
  });

  it('accepts the same address on different ports', () => {
    expect(diagnosticsOf(`hosts:\n${cp}  - { name: w1, address: 10.0.0.1, port: 2222 }\n`).errors).toEqual([]);
  });

  it('refuses a YAML alias bomb instead of expanding it', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...'bcde'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcd'[i]}`).join(', ')}]`),
    ].join('\n');
    const { errors } = diagnosticsOf(`${bomb}\nhosts:\n${cp}`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^inv\.yaml:1:1: YAML: .*alias/);
  });

  it('warns that a bundle path is ignored while the source is release', () => {
    expect(diagnosticsOf(`cluster:\n  artifacts: { bundle: ./b.tar }\nhosts:\n${cp}`).warnings).toEqual([
      'inv.yaml:2:24: warning: cluster.artifacts.bundle: is ignored while source is release: set source: bundle to use it, or remove it',
    ]);
  });

  it('names every host that has no way to log in, once, where the ssh defaults are', () => {
    const text = `ssh:\n  agent: false\nhosts:\n${cp}  - { name: w1, address: 10.0.0.2 }\n  - { name: w2, address: 10.0.0.3, passwordEnv: W2_PW }\n`;
    expect(diagnosticsOf(text, { env: {} }).errors).toEqual([
      'inv.yaml:2:3: ssh: no way to log in to cp1, w1: agent is false and no keyFile or passwordEnv is set; set ssh.keyFile (or keyFile on a host), agent: true with a running ssh-agent, or passwordEnv',
    ]);
  });
});

describe('inventory fixture files', () => {
  const dir = 'test/fixtures/inventory';

  it('reports every problem of a file at once, with the path as the user gave it', async () => {
    const result = await loadInventory(`${dir}/many-errors.yaml`, { env, homeDir: home });
    expect(result.ok ? [] : result.errors.map(formatDiagnostic)).toEqual(
      [
        `2:9: cluster.name: must be a lowercase name of letters, digits and '-' (max 63) (got "Prod")`,
        '3:22: cluster.kubernetesVersion: must be a version such as v1.35.8 (got "1.34.2")',
        '5:16: cluster.serviceCIDR: pod CIDR 10.0.0.0/8 and service CIDR 10.96.0.0/12 overlap: choose disjoint ranges',
        '6:8: cluster.cni: must be one of flannel, none (got "calico")',
        '8:9: ssh.port: must be an integer 1-65535 (got "22a")',
        '9:16: ssh.passwordEnv: must be the NAME of an environment variable (e.g. KCLUSTER_SUDO_PASSWORD), never the secret itself (got "s3cret pass")',
        `12:12: groups.etcd.hosts: "etcd" is a built-in group: its members come from each host's roles; set roles on the hosts instead`,
        '14:13: groups.web.hosts[0]: no host named "w01"; did you mean "w1"?',
        '16:5: hosts[0]: missing required key "address"',
        '17:5: hosts[0].adress: unknown key "adress"; did you mean "address"? (allowed: name, address, ipv6Address, arch, port, user, keyFile, agent, keyPassphraseEnv, passwordEnv, become, bastion, roles, vars)',
        '18:13: hosts[0].roles[0]: must be one of control-plane, worker, etcd (got "master")',
        '22:14: hosts[1].bastion: no host named "jump"',
        '23:11: hosts[2].name: duplicate host name "w1" (also hosts[1])',
      ].map((line) => `${dir}/many-errors.yaml:${line}`),
    );
  });

  it('reports a YAML syntax error with its position', async () => {
    const result = await loadInventory(`${dir}/yaml-syntax.yaml`, { env, homeDir: home });
    expect(result.ok ? [] : result.errors.map(formatDiagnostic)).toEqual([
      `${dir}/yaml-syntax.yaml:4:5: YAML syntax: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    ]);
  });

  it('loads with warnings only: an even etcd count and a host inside the service CIDR', async () => {
    const result = await loadInventory(`${dir}/even-etcd.yaml`, { env: {}, homeDir: home });
    expect(result.ok).toBe(true);
    expect(result.warnings.map(formatDiagnostic)).toEqual([
      `${dir}/even-etcd.yaml:4:3: warning: hosts: 2 etcd members: an even count tolerates no more failures than 1; use an odd number`,
      `${dir}/even-etcd.yaml:6:26: warning: hosts[2].address: 10.96.0.20 lies inside the service CIDR 10.96.0.0/12: traffic to this host would be routed into the cluster`,
    ]);
  });
});

describe('inventory limits (hostile input)', () => {
  const cp = '  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n';
  const errors = (text: string): string[] => {
    const r = parseInventory(text, 'inv.yaml', { env: { SSH_AUTH_SOCK: '/agent' } });
    return r.ok ? [] : r.errors.map(formatDiagnostic);
  };
  it('durations a timer cannot hold are refused with their bounds', () => {
    expect(errors(`ssh:\n  connectTimeout: 2147483648\n  keepaliveInterval: 99999m\nhosts:\n${cp}`)).toEqual([
      'inv.yaml:2:19: ssh.connectTimeout: connectTimeout must be between 100 ms and 10 minutes (got 2147483648 ms)',
      'inv.yaml:3:22: ssh.keepaliveInterval: keepaliveInterval must be between 100 ms and 10 minutes (got 99999m)',
    ]);
    expect(errors(`ssh:\n  connectTimeout: 10m\n  keepaliveInterval: 100ms\nhosts:\n${cp}`)).toEqual([]);
    expect(errors(`ssh:\n  commandIdleTimeout: 500ms\nhosts:\n${cp}`)).toEqual([
      'inv.yaml:2:23: ssh.commandIdleTimeout: commandIdleTimeout must be between 1000 ms and 1440 minutes (got 500ms)',
    ]);
    expect(errors(`ssh:\n  commandIdleTimeout: 1440m\nhosts:\n${cp}`)).toEqual([]);
  });
  it('keepaliveCountMax is an integer 1-20', () => {
    for (const bad of ['0', '21', '2.5', 'three']) {
      expect(errors(`ssh:\n  keepaliveCountMax: ${bad}\nhosts:\n${cp}`)).toEqual([
        expect.stringMatching(/^inv\.yaml:2:22: ssh\.keepaliveCountMax: must be an integer 1-20 \(unanswered keepalives before the host is unreachable\)/),
      ]);
    }
    expect(errors(`ssh:\n  keepaliveCountMax: 1\nhosts:\n${cp}`)).toEqual([]);
    expect(errors(`ssh:\n  keepaliveCountMax: 20\nhosts:\n${cp}`)).toEqual([]);
  });
  it('a circular alias, too deep a nesting, and a __proto__ key are errors with a place', () => {
    expect(errors('hosts: &a [*a]\n')).toEqual(['inv.yaml:1:12: the alias *a refers to the node that contains it (&a): a value cannot include itself']);
    expect(errors(`hosts:\n${cp}vars: ${'['.repeat(70)}${']'.repeat(70)}\n`)).toEqual([
      expect.stringMatching(/^inv\.yaml:3:\d+: the inventory nests maps and lists more than 64 levels deep: kcluster reads at most 64$/),
    ]);
    expect(errors(`hosts:\n${cp}vars: { __proto__: { polluted: true } }\n`)).toEqual([
      'inv.yaml:3:9: the key "__proto__" is not allowed: JavaScript would drop it; rename it',
    ]);
  });
  it('control characters in values are escaped in messages', () => {
    expect(errors(`hosts:\n  - { name: "a\\e[31m", address: 10.0.0.1, roles: [control-plane] }\n`)[0]).toContain('(got "a\\u001b[31m")');
    expect(formatDiagnostic({ file: 'f', line: 1, col: 1, path: 'x', message: 'bell \u0007 csi \u009b', severity: 'error' })).toBe(
      'f:1:1: x: bell \\u0007 csi \\u009b',
    );
  });
  it('a key file or known_hosts that is not a regular file is refused before anything runs', () => {
    expect(errors(`ssh:\n  keyFile: /dev/zero\nhosts:\n${cp}`)).toEqual([
      'inv.yaml:2:12: ssh.keyFile: /dev/zero is not a regular file (a private key file must be one)',
    ]);
    expect(errors(`ssh:\n  agent: true\n  knownHostsFile: /dev/null\nhosts:\n${cp}`)).toEqual([
      'inv.yaml:3:19: ssh.knownHostsFile: /dev/null is not a regular file (a known_hosts file must be one)',
    ]);
  });
  it('thousands of hosts without credentials make one short message', () => {
    const hosts = Array.from(
      { length: 5000 },
      (_, i) => `  - { name: h${i}, address: 10.1.${i >> 8}.${i & 255}${i === 0 ? ', roles: [control-plane]' : ''} }\n`,
    ).join('');
    const r = parseInventory(`hosts:\n${hosts}`, 'inv.yaml', { env: {}, homeDir: '/nonexistent' });
    const messages = r.ok ? [] : r.errors.map(formatDiagnostic);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('no way to log in to any of the 5000 hosts');
    expect(messages[0]!.length).toBeLessThan(400);
  });
});

describe('schema validation in host slices (linear in the hosts)', () => {
  it('finds the same errors, at the same host indexes, as one validation of the whole document', () => {
    const hosts = Array.from({ length: 1700 }, (_, i) =>
      i % 97 === 0 ? { name: `Bad_${i}`, address: 'no address', port: -i, extra: 1 } : { name: `h${i}`, address: `10.0.${i >> 8}.${i & 255}` },
    );
    const doc = { ssh: { agent: 'yes' }, bogus: 1, hosts };
    const validate = compileInventorySchema();
    const whole = validate(doc) ? [] : [...(validate.errors ?? [])];
    const sliced = schemaErrors(validate, doc);
    const key = (e: { instancePath: string; keyword: string; params: unknown }) => `${e.instancePath} ${e.keyword} ${JSON.stringify(e.params)}`;
    expect(sliced.map(key).sort()).toEqual(whole.map(key).sort());
    expect(sliced.some((e) => e.instancePath.startsWith('/hosts/1649/'))).toBe(true);
  });
});
