// Commands of several runs hold the state lock from their first read of the state folder to
// their last write: while another kcluster (a real process, named in the lock) holds it, `certs
// rotate-ca` and `secrets rotate-key` are refused before they read or write anything. Before,
// rotate-ca made its new CAs in pki/rotation/next/ and only then met the lock.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

let holder: ChildProcess;
const dir = mkdtempSync(join(tmpdir(), 'kc-multi-run-lock-'));
const state = join(dir, 'state');
const inventory = join(dir, 'inventory.yaml');

beforeAll(() => {
  holder = spawn('sleep', ['60']);
  mkdirSync(join(state, 'pki'), { recursive: true });
  mkdirSync(join(state, 'encryption'), { recursive: true });
  // Only what the commands look for before they would run: an installed PKI's CA certificate.
  writeFileSync(join(state, 'pki', 'ca.crt'), 'not read before the lock\n');
  writeFileSync(
    join(state, 'lock'),
    JSON.stringify({ pid: holder.pid, host: hostname(), started: '2026-11-28T10:00:00.000Z', command: 'kcluster apply -i other.yaml' }),
  );
  writeFileSync(
    inventory,
    `cluster:\n  name: lk\nstateDir: ${state}\nssh: { agent: true }\nhosts:\n  - { name: cp1, address: 10.231.99.11, roles: [control-plane] }\n`,
  );
});
afterAll(() => void holder.kill());

describe('a command of several runs, while another kcluster holds the state lock', () => {
  it.each([
    ['certs rotate-ca', ['certs', 'rotate-ca', '-i', inventory, '--yes']],
    ['certs rotate-ca --service-account-key', ['certs', 'rotate-ca', '-i', inventory, '--yes', '--service-account-key']],
    ['secrets rotate-key', ['secrets', 'rotate-key', '-i', inventory, '--yes']],
  ])('%s is refused with the holder named, and the state folder is as it was', async (_name, args) => {
    const before = readdirSync(state, { recursive: true }).sort();
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`another kcluster run holds ${join(state, 'lock')}: pid ${holder.pid} on ${hostname()}`);
    expect(r.err).toContain('kcluster apply -i other.yaml');
    expect(existsSync(join(state, 'pki', 'rotation'))).toBe(false);
    expect(readdirSync(state, { recursive: true }).sort()).toEqual(before);
  });
});
