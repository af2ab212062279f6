// Refusals before a lab is built, each saying what to do.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

function onPath(command: string): boolean {
  return ['/usr/sbin', '/usr/bin', '/sbin', '/bin', '/usr/local/sbin', '/usr/local/bin'].some((d) => existsSync(`${d}/${command}`));
}

export function labPreflight(net: string, bridge: string, vm = false): string[] {
  const problems: string[] = [];
  if (process.platform !== 'linux') return ['the local lab needs Linux (systemd-nspawn and network namespaces); use vagrant/ on other systems'];
  if (process.getuid?.() !== 0) problems.push('the lab needs root (it creates bridges, mounts and containers): run it with sudo');
  if (vm && !onPath('qemu-system-x86_64'))
    problems.push('QEMU is missing: run `kcluster lab deps --vm`, or apt-get install --no-install-recommends qemu-system-x86');
  if (vm && !onPath('mke2fs')) problems.push('mke2fs is missing: apt-get install e2fsprogs');
  if (!onPath('systemd-nspawn'))
    problems.push('systemd-nspawn is missing: run `kcluster lab deps`, or apt-get install --no-install-recommends systemd-container');
  if (!onPath('debootstrap')) problems.push('debootstrap is missing: run `kcluster lab deps`, or apt-get install --no-install-recommends debootstrap');
  if (!onPath('ssh-keygen') || !onPath('ssh')) problems.push('the OpenSSH client is missing: apt-get install openssh-client');
  if (!onPath('ip')) problems.push('ip is missing: apt-get install iproute2');
  if (existsSync('/proc/sys/net/ipv4/ip_forward') && readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim() === '1') {
    problems.push(
      'this machine forwards IPv4 (net.ipv4.ip_forward=1): lab traffic could leave the machine; set it to 0 first (sysctl -w net.ipv4.ip_forward=0)',
    );
  }
  if (onPath('ip')) {
    const routes = execFileSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' });
    const clash = routes.split('\n').find((r) => r.startsWith(`${net}.0/24`) && !r.includes(`dev ${bridge} `));
    if (clash) problems.push(`the subnet ${net}.0/24 is already in use on this machine (${clash.trim()}): choose another with --subnet`);
  }
  return problems;
}
