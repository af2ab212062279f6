// The read-only commands share one fan-out (readOnEachHost): a host that does not answer is
// reported the same way by facts, certs check and etcd snapshot list ("HOST: unreachable:
// REASON", exit 5). The hosts are on loopback ports where no sshd listens.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-read-each-'));
const inventory = join(dir, 'inventory.yaml');
mkdirSync(join(dir, 'state', 'pki'), { recursive: true });
writeFileSync(join(dir, 'key'), 'not a key\n', { mode: 0o600 });
writeFileSync(
  inventory,
  `cluster: { name: each }
stateDir: ${join(dir, 'state')}
ssh: { user: root, keyFile: ${join(dir, 'key')}, port: 9, connectTimeout: 2s, connectRetries: 0 }
hosts:
  - { name: cp1, address: 127.0.0.1, roles: [control-plane] }
  - { name: w1, address: 127.0.0.2, roles: [worker] }
`,
);

describe('a host that does not answer, in the read-only commands', () => {
  it.each([
    [
      ['facts', '-i', inventory],
      ['cp1', 'w1'],
    ],
    [
      ['certs', 'check', '-i', inventory],
      ['cp1', 'w1'],
    ],
    [['etcd', 'snapshot', 'list', '-i', inventory], ['cp1']],
  ])(
    'kcluster %j names each host unreachable, exit 5',
    async (args, hosts) => {
      const r = await runCli(args);
      expect(r.code, r.err).toBe(5);
      for (const host of hosts) expect(r.err).toMatch(new RegExp(`^${host}: unreachable: \\S`, 'm'));
    },
    30_000,
  );
});
