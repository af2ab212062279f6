// Host selectors with Ansible's semantics: names, groups, globs, exclusion and intersection.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { selectHosts } from '../../../src/orchestrator/inventory/select-hosts.js';

const text = `
groups:
  edge: { hosts: [w3, cp2] }
  db-a: { hosts: [w1] }
hosts:
  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }
  - { name: cp2, address: 10.0.0.2, roles: [control-plane] }
  - { name: cp3, address: 10.0.0.3, roles: [control-plane] }
  - { name: w1, address: 10.0.0.11, roles: [worker] }
  - { name: w2, address: 10.0.0.12, roles: [worker] }
  - { name: w3, address: 10.0.0.13, roles: [worker] }
  - { name: db1, address: 10.0.0.21, roles: [worker, etcd] }
`;
const result = parseInventory(text, join(tmpdir(), 'select.yaml'), { env: { SSH_AUTH_SOCK: '/a' }, homeDir: tmpdir() });
if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join('\n'));
const inv = result.inventory;

describe('selectHosts', () => {
  it.each<[string | string[], string[]]>([
    ['all', ['cp1', 'cp2', 'cp3', 'w1', 'w2', 'w3', 'db1']],
    ['etcd', ['db1']],
    ['w3,cp1', ['cp1', 'w3']],
    [
      ['w3', 'cp1'],
      ['cp1', 'w3'],
    ],
    ['edge', ['cp2', 'w3']],
    ['cp?', ['cp1', 'cp2', 'cp3']],
    ['w[12]', ['w1', 'w2']],
    ['w[!12]', ['w3']],
    ['cp[2-3]', ['cp2', 'cp3']],
    ['db*', ['w1', 'db1']],
    ['worker,!edge', ['w1', 'w2', 'db1']],
    ['control-plane,&edge', ['cp2']],
    ['control-plane,worker,&edge,!w3', ['cp2']],
    ['!control-plane', ['w1', 'w2', 'w3', 'db1']],
    ['&edge', ['cp2', 'w3']],
    [' cp1 , cp1 ', ['cp1']],
    ['worker:!w2', ['w1', 'w3', 'db1']],
  ])('%s', (selector, expected) => {
    expect(selectHosts(inv, selector)).toEqual({ hosts: expected, unknown: [] });
  });

  it('reports terms that name nothing, including globs that match nothing and excluded terms', () => {
    expect(selectHosts(inv, 'cp1,cp9,x*,!nope,&zz')).toEqual({ hosts: [], unknown: ['cp9', 'x*', 'zz', 'nope'] });
    expect(selectHosts(inv, 'cp1,cp9')).toEqual({ hosts: ['cp1'], unknown: ['cp9'] });
  });

  it('treats an unclosed bracket as a name that matches nothing, not a crash', () => {
    expect(selectHosts(inv, 'w[1')).toEqual({ hosts: [], unknown: ['w[1'] });
  });

  it('does not read regular expression syntax in a glob', () => {
    expect(selectHosts(inv, 'cp.').unknown).toEqual(['cp.']);
    expect(selectHosts(inv, 'c(p)1').unknown).toEqual(['c(p)1']);
  });
});
