// The inventories bench/validate/run.sh times: valid ones of 1,000 to 90,000 hosts, the largest
// kcluster reads (16 MiB, valid and every host invalid: the memory bound), and shapes
// that used to be slow (unknown group members, long names, no credentials, many errors).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const address = (i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const host = (i, extra = '') => `  - { name: node-${i}, address: ${address(i)}, roles: [${i === 0 ? 'control-plane' : 'worker'}]${extra} }\n`;
const hosts = (n, extra) => Array.from({ length: n }, (_, i) => host(i, extra?.(i) ?? '')).join('');
const write = (name, text) => writeFileSync(join(dir, `${name}.yaml`), text);

for (const n of [1000, 10_000, 90_000]) write(`valid-${n}-hosts`, `ssh: { agent: true }\nhosts:\n${hosts(n)}`);
write(
  '3000-unknown-group-members',
  `ssh: { agent: true }\nhosts:\n${hosts(3000)}groups:\n  g:\n    hosts: [${Array.from({ length: 3000 }, (_, i) => `missing-host-${i}`).join(', ')}]\n`,
);
write(
  '3000-names-of-5000-chars',
  `ssh: { agent: true }\nhosts:\n${hosts(3000)}groups:\n  g:\n    hosts: [${Array.from({ length: 3000 }, (_, i) => `${'n'.repeat(5000)}${i}`).join(', ')}]\n`,
);
write('5000-hosts-no-credentials', `hosts:\n${hosts(5000)}`);
write('10000-unknown-bastions', `ssh: { agent: true }\nhosts:\n${hosts(10_000, (i) => (i > 0 ? `, bastion: gw-${i}` : ''))}`);
write(
  '50000-invalid-hosts',
  `ssh: { agent: true }\nhosts:\n${Array.from({ length: 50_000 }, (_, i) => `  - { name: "Bad_${i}", address: "not an address ${i}", port: -${i} }\n`).join('')}`,
);

/** As many lines as fit in the largest inventory kcluster reads (16 MiB): the memory bound. */
function upTo16MiB(head, line) {
  const limit = 16 * 1024 * 1024 - 64;
  const parts = [head];
  let size = head.length;
  for (let i = 0; ; i++) {
    const next = line(i);
    if (size + next.length > limit) break;
    parts.push(next);
    size += next.length;
  }
  return parts.join('');
}
write(
  'max-size-valid',
  upTo16MiB('ssh: { agent: true }\nhosts:\n', (i) => host(i)),
);
write(
  'max-size-all-invalid',
  upTo16MiB('ssh: { agent: true }\nhosts:\n', (i) => `  - { name: "Bad_${i}", address: "not an address ${i}" }\n`),
);
