import { it } from 'vitest';
import { formatDiagnostic, parseInventory } from '../../../src/inventory/load-inventory.js';
const env = { SSH_AUTH_SOCK: '/tmp/a' };
const cp = `  - name: cp1\n    address: 10.0.0.1\n    roles: [control-plane]\n`;
const probes: Record<string, string> = {
  allvars: `groups:\n  all:\n    vars: { x: 1 }\nhosts:\n${cp}`,
  badgroupname: `groups:\n  "we b!":\n    hosts: [cp1]\nhosts:\n${cp}`,
  chain: `hosts:\n${cp}    bastion: j1\n  - name: j1\n    address: 10.0.0.2\n    bastion: j2\n  - name: j2\n    address: 10.0.0.3\n`,
  groupIsHost: `groups:\n  cp1:\n    hosts: [cp1]\nhosts:\n${cp}`,
  dupkey: `hosts:\n${cp}    address: 10.0.0.5\n`,
  hostsmap: `hosts: {}\n`,
  hostsstr: `hosts:\n  - cp1\n  - cp2\n`,
  missingnames: `hosts:\n  - address: 10.0.0.1\n  - address: 10.0.0.2\n`,
  roletypo: `hosts:\n  - name: cp1\n    address: 10.0.0.1\n    roles: [control-plan]\n`,
  bastionkey: `hosts:\n${cp}    bastion: { address: 10.0.0.9, pasword: x }\n`,
  becomeyes: `hosts:\n${cp}    become: "yes"\n`,
  bundleNoPath: `cluster:\n  artifacts: { source: bundle }\nhosts:\n${cp}`,
  emptyhosts: `hosts: []\n`,
  apiPort: `cluster:\n  apiEndpoint: { prot: 1 }\nhosts:\n${cp}`,
  tabs: `hosts:\n\t- name: x\n`,
  multidoc: `hosts:\n${cp}---\nhosts: []\n`,
  sshbadenv: `ssh:\n  keyPassphraseEnv: "my pass"\n  passwordEnv: 1abc\nhosts:\n${cp}`,
  scalar: `just a string\n`,
  upperhost: `hosts:\n  - name: CP1\n    address: 10.0.0.1\n    roles: [control-plane]\n`,
  hostkeyuser: `hosts:\n${cp}    usr: x\n    keyfile: /x\n`,
  rolesEmpty: `hosts:\n  - name: cp1\n    address: 10.0.0.1\n    roles: []\n`,
  versionNum: `cluster:\n  kubernetesVersion: 1.34\nhosts:\n${cp}`,
  etcdOnly: `hosts:\n${cp}  - name: e1\n    address: 10.0.0.2\n    roles: [etcd]\n`,
  cidrBig: `cluster:\n  podCIDR: 10.244.0.0/33\nhosts:\n${cp}`,
  anchors: `x-common: &c { roles: [worker] }\nhosts:\n${cp}`,
  nullhost: `hosts:\n  -\n${cp}`,
  durationNeg: `ssh:\n  connectTimeout: -5\nhosts:\n${cp}`,
  apihostbad: `cluster:\n  apiEndpoint: { host: "a b" }\nhosts:\n${cp}`,
};
it('probe', () => {
  for (const [name, text] of Object.entries(probes)) {
    const r = parseInventory(text, 'inv.yaml', { env, homeDir: '/nonexistent' });
    console.log(`--- ${name}: ${r.ok ? 'OK ' + JSON.stringify(r.inventory.hosts.map((h) => [h.name, h.roles, h.vars, h.bastion?.name])) : ''}\n` + [...(r.ok ? [] : r.errors), ...r.warnings].map(formatDiagnostic).join('\n'));
  }
});
it('probe2', () => {
  const more: Record<string, string> = {
    agentStr: `hosts:\n${cp}    agent: "yes"\n`,
    becomeObjBad: `hosts:\n${cp}    become: { methd: sudo }\n`,
    bastionEmpty: `hosts:\n${cp}    bastion: ""\n`,
    durFloat: `ssh:\n  connectTimeout: 1.5\nhosts:\n${cp}`,
    hostNamedWorker: `hosts:\n${cp}  - name: worker\n    address: 10.0.0.7\n`,
    bundleRel: `cluster:\n  artifacts: { bundle: ./b.tar }\nhosts:\n${cp}`,
    sshBecome: `ssh:\n  user: deploy\n  become: { passwordEnv: PW }\nhosts:\n${cp}`,
    laughs: `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\nhosts:\n${cp}`,
    noauth: `hosts:\n${cp}  - name: w1\n    address: 10.0.0.3\n`,
  };
  for (const [name, text] of Object.entries(more)) {
    const r = parseInventory(text, 'inv.yaml', { env: name === 'noauth' ? {} : env, homeDir: '/nonexistent' });
    console.log(`--- ${name}: ${r.ok ? 'OK ' + JSON.stringify(r.inventory.hosts.map((h) => [h.name, h.become, h.vars])) + JSON.stringify(r.inventory.cluster.artifacts) : ''}\n` + [...(r.ok ? [] : r.errors), ...r.warnings].map(formatDiagnostic).join('\n'));
  }
});
