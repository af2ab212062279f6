// One download of a lab host's file, by one method, in its own process (so peak RSS is its own):
//   node bench/download/one.mjs INVENTORY HOST REMOTE LOCAL sftp|base64
// sftp: Connection.downloadFile (node-ssh over kcluster's ssh2 connection, streamed to disk).
// base64: what etcd snapshots used before: `base64 -w0` over an exec channel, decoded in memory.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { loadInventory } from '../../dist/src/kubernetes/inventory/load-inventory.js';
import { createSshConnector } from '../../dist/src/orchestrator/ssh/connector.js';
import { hostKeyPolicyFor } from '../../dist/src/orchestrator/ssh/host-key-policy-for.js';
import { sh } from '../../dist/src/orchestrator/ssh/quote.js';

const [file, hostName, remote, local, method] = process.argv.slice(2);
const result = await loadInventory(file, { env: process.env });
if (!result.ok) throw new Error(JSON.stringify(result.errors));
const inventory = result.inventory;
const connector = createSshConnector({ inventory, env: process.env, hostKeys: hostKeyPolicyFor(inventory, process.env) });
const connection = await connector.connect(
  inventory.hosts.find((h) => h.name === hostName),
  new AbortController().signal,
);
const started = performance.now();
let sha256;
if (method === 'sftp') {
  sha256 = (await connection.downloadFile(remote, local, { become: true })).sha256;
} else {
  const out = await connection.exec(sh`base64 -w0 < ${remote}`, { become: true, timeoutMs: 600_000 });
  const bytes = Buffer.from(out.stdout.trim(), 'base64');
  sha256 = createHash('sha256').update(bytes).digest('hex');
  writeFileSync(local, bytes, { mode: 0o600 });
}
const ms = performance.now() - started;
await connection.close();
console.log(JSON.stringify({ method, ms: Math.round(ms), sha256 }));
