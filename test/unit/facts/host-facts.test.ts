// The host facts parser from fixture outputs: one captured on a real machine (Debian 12) and
// hand-made ones for a cgroup v2 host, a host without ss, a host with swap on.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostFacts, parseAddresses, parseHostFacts, parsePorts } from '../../../src/orchestrator/facts/host-facts.js';
import { factsTable } from '../../../src/orchestrator/facts/facts-table.js';
import { readFactLocally } from './support/read-fact-locally.js';

const fixture = (name: string): string => readFileSync(join(import.meta.dirname, '../../fixtures/facts', name), 'utf8');

describe('host facts', () => {
  it('parses output captured from this machine with /bin/sh (real fixture)', () => {
    const facts = parseHostFacts(fixture('host-facts-real-debian12.txt'));
    expect(facts.os).toEqual({ id: 'debian', idLike: [], version: '12', prettyName: 'Debian GNU/Linux 12 (bookworm)' });
    expect(facts).toMatchObject({
      kernel: '6.18.44-fc-v657',
      arch: 'x86_64',
      cpus: 2,
      memoryBytes: 24684092 * 1024,
      swapBytes: 0,
      swapOn: false,
      cgroup: 'hybrid',
      hostname: 'vm',
      init: 'process_api',
      runtimes: {},
    });
    expect(facts.machineId).toMatch(/^[0-9a-f]{32}$/);
    expect(facts.addresses).toContainEqual({ iface: 'eth0', family: 'inet', address: '192.0.2.2/24' });
    expect(facts.addresses).toContainEqual({ iface: 'lo', family: 'inet6', address: '::1/128' });
    expect(facts.listeningTcpPorts).toEqual([2024, 3142]);
  });

  it('parses output captured over SSH from a systemd-nspawn lab host (real fixture)', () => {
    const facts = parseHostFacts(fixture('host-facts-real-nspawn-debian12.txt'));
    expect(facts).toMatchObject({ os: { id: 'debian', version: '12' }, hostname: 'kce1', init: 'systemd', swapOn: false, listeningTcpPorts: [22] });
    expect(facts.addresses).toContainEqual({ iface: 'host0', family: 'inet', address: '10.231.0.11/24' });
  });

  it('agrees with the machine it runs on when the script runs now', () => {
    const facts = readFactLocally(hostFacts);
    expect(facts.kernel).toBe(execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim());
    expect(facts.arch).toBe(execFileSync('uname', ['-m'], { encoding: 'utf8' }).trim());
    expect(facts.hostname).toBe(readFileSync('/proc/sys/kernel/hostname', 'utf8').trim());
    expect(facts.memoryBytes).toBeGreaterThan(0);
    expect(facts.cpus).toBeGreaterThan(0);
    expect(facts.addresses.some((a) => a.iface === 'lo' && a.address.startsWith('127.'))).toBe(true);
  });

  it('parses a cgroup v2 host with containerd and runc, ss with IPv6 and scoped listeners', () => {
    const facts = parseHostFacts(fixture('host-facts-cgroup-v2-ubuntu.txt'));
    expect(facts).toMatchObject({
      os: { id: 'ubuntu', idLike: ['debian'], version: '24.04' },
      arch: 'aarch64',
      cpus: 4,
      cgroup: 'v2',
      swapOn: false,
      init: 'systemd',
    });
    expect(facts.runtimes).toEqual({
      containerd: { path: '/usr/bin/containerd', version: 'containerd containerd.io 1.7.22 7f7fdf5fed64eb6a7caf99b3e12efcf9d60e311c' },
      runc: { path: '/usr/sbin/runc', version: 'runc version 1.1.14' },
    });
    expect(facts.listeningTcpPorts).toEqual([22, 53, 6443, 10248]);
    expect(facts.addresses.filter((a) => a.family === 'inet').map((a) => `${a.iface} ${a.address}`)).toEqual([
      'lo 127.0.0.1/8',
      'enp1s0 10.231.0.11/24',
      'cni0 10.244.0.1/24',
    ]);
  });

  it('reads listening ports from /proc/net/tcp and tcp6 on a host without ss', () => {
    const facts = parseHostFacts(fixture('host-facts-no-ss-rocky.txt'));
    expect(facts.os).toMatchObject({ id: 'rocky', idLike: ['rhel', 'centos', 'fedora'], version: '9.4' });
    // 22 on both families counted once; the ESTABLISHED row (state 01) is not a listener.
    expect(facts.listeningTcpPorts).toEqual([22, 8080, 10000]);
    expect(facts.addresses).toContainEqual({ iface: 'eth0.100', family: 'inet', address: '192.168.100.7/24' });
  });

  it('sees swap that is on, and a runtime whose --version said nothing', () => {
    const facts = parseHostFacts(fixture('host-facts-swap-on.txt'));
    expect(facts).toMatchObject({ swapOn: true, swapBytes: 2097148 * 1024, cgroup: 'v1', cpus: 8 });
    expect(facts.runtimes['runc']).toEqual({ path: '/usr/sbin/runc' });
    expect(Object.keys(facts.runtimes).sort()).toEqual(['containerd', 'dockerd', 'runc']);
  });

  it('refuses output that was cut short', () => {
    const text = fixture('host-facts-swap-on.txt');
    expect(() => parseHostFacts(text.slice(0, text.indexOf('@@kc-host:ports')))).toThrow('cut short');
  });

  it('ignores garbage lines in the address and port sections', () => {
    expect(parseAddresses('not an address line\n')).toEqual([]);
    expect(parsePorts('ss\nLISTEN 0 128 0.0.0.0:notaport 0.0.0.0:*\n')).toEqual([]);
  });
});

describe('facts table', () => {
  it('shows one row per host, unreachable ones included', () => {
    const table = factsTable([
      { host: 'cp-1', facts: parseHostFacts(fixture('host-facts-cgroup-v2-ubuntu.txt')) },
      { host: 'old', facts: parseHostFacts(fixture('host-facts-swap-on.txt')) },
      { host: 'gone', error: 'UNREACHABLE' },
    ]);
    const lines = table.split('\n');
    expect(lines[0]).toMatch(/^host\s+os\s+kernel\s+arch\s+cpus\s+memory\s+swap\s+cgroup\s+init\s+runtimes\s+addresses$/);
    expect(lines[1]).toMatch(
      /^cp-1\s+Ubuntu 24\.04\.1 LTS\s+6\.8\.0-45-generic\s+aarch64\s+4\s+7\.8G\s+off\s+v2\s+systemd\s+containerd 1\.7\.22,runc 1\.1\.14\s+10\.231\.0\.11\/24,10\.244\.0\.1\/24$/,
    );
    expect(lines[2]).toContain('on 2.0G');
    expect(lines[3]).toMatch(/^gone\s+UNREACHABLE$/);
  });
});
