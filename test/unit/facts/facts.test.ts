// Fact scripts and their parsers, end to end through a real local /bin/sh.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../../src/engine/fact.js';
import { fileState } from '../../../src/facts/file-state.js';
import { hostFacts, parseHostFacts } from '../../../src/facts/host-facts.js';
import { sysctlValue } from '../../../src/facts/sysctl-value.js';
import { packageState } from '../../../src/facts/package-state.js';

function read<T>(fact: Fact<T>): T {
  let stdout = '';
  let code = 0;
  try {
    stdout = execFileSync('/bin/sh', ['-c', fact.script.text], { encoding: 'utf8' });
  } catch (error) {
    const e = error as { status: number; stdout: string };
    code = e.status;
    stdout = e.stdout;
  }
  return fact.parse(stdout, code);
}

describe('file state', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kc-facts-'));
  it('reads a file whose path holds spaces, quotes and $()', () => {
    const path = join(dir, "a b'c $(touch pwned) `touch pwned`");
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13]);
    writeFileSync(path, bytes);
    chmodSync(path, 0o640);
    const state = read(fileState(path, { content: true }));
    expect(state).toMatchObject({ exists: true, type: 'file', mode: '0640', size: 6 });
    expect(state.content).toEqual(bytes);
    expect(read(fileState(join(dir, 'pwned')))).toEqual({ exists: false });
    expect(read(fileState(join(process.cwd(), 'pwned')))).toEqual({ exists: false });
  });
  it('omits content over the size cap and when not asked', () => {
    const path = join(dir, 'big');
    writeFileSync(path, 'x'.repeat(100));
    expect(read(fileState(path, { content: true, maxContentBytes: 10 })).content).toBeUndefined();
    expect(read(fileState(path)).sha256).toMatch(/^[0-9a-f]{64}$/);
  });
  it('reports directories', () => {
    expect(read(fileState(dir))).toMatchObject({ exists: true, type: 'directory' });
  });
});

describe('host facts', () => {
  it('parses the real output of this machine', () => {
    const facts = read(hostFacts);
    expect(facts.os.id).toBe('debian');
    expect(facts.cpus).toBeGreaterThan(0);
    expect(facts.memoryBytes).toBeGreaterThan(0);
    expect(['v1', 'v2', 'hybrid']).toContain(facts.cgroup);
    expect(facts.kernel).toBe(execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim());
  });
  it('parses a cgroup v2 host with swap on and no ss (listening ports from /proc/net/tcp)', () => {
    const output = [
      '', '##os-release', 'ID=ubuntu', 'ID_LIKE=debian', 'VERSION_ID="24.04"', 'PRETTY_NAME="Ubuntu 24.04 LTS"',
      '##kernel', '6.8.0', '##arch', 'aarch64', '##cpus', '4',
      '##meminfo', 'MemTotal:        8000000 kB', 'SwapTotal:       1000 kB', 'SwapFree:        1000 kB',
      '##swaps', '/swap.img file 1000 0 -2', '##cgroup', 'v2', '##machine-id', 'abc', '##hostname', 'n1',
      '##addresses', '2: eth0    inet 192.168.1.5/24 brd 192.168.1.255 scope global eth0', '##init', 'systemd',
      '##runtimes', 'containerd /usr/bin/containerd',
      '##ports', '#proc', '  sl  local_address rem_address   st', '   0: 00000000:1A0B 00000000:0000 0A 00000000:00000000', '   1: 00000000:0016 00000000:0000 01 00000000:00000000',
    ].join('\n');
    const facts = parseHostFacts(output);
    expect(facts).toMatchObject({ os: { id: 'ubuntu', idLike: ['debian'], version: '24.04' }, arch: 'aarch64', cpus: 4, swapOn: true, cgroup: 'v2', runtimes: { containerd: '/usr/bin/containerd' }, listeningTcpPorts: [6667] });
    expect(facts.addresses).toEqual([{ iface: 'eth0', family: 'inet', address: '192.168.1.5/24' }]);
  });
});

describe('sysctl and package facts', () => {
  it('reads a live kernel value', () => {
    expect(read(sysctlValue('kernel.ostype'))).toEqual({ present: true, value: 'Linux' });
    expect(read(sysctlValue('kernel.no_such_key'))).toEqual({ present: false });
  });
  it('knows an installed package and a missing one', () => {
    expect(read(packageState('coreutils'))).toMatchObject({ installed: true, manager: 'dpkg' });
    expect(read(packageState('no-such-package-kc'))).toEqual({ installed: false, manager: 'dpkg' });
  });
});
