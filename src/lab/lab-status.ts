// Is a lab up, and which of its hosts are running?
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabInfo } from './lab-state.js';

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.split(' ')[2] !== 'Z';
  } catch {
    return false;
  }
}

export function hostRunning(info: LabInfo, host: string): boolean {
  const pidFile = join(info.runDir, 'hosts', host, info.vm !== undefined ? 'qemu.pid' : 'pid');
  return existsSync(pidFile) && alive(Number(readFileSync(pidFile, 'utf8').trim()));
}

export function labIsRunning(info: LabInfo): boolean {
  return info.hostList.some((h) => hostRunning(info, h.name));
}

export function labStatusOf(info: LabInfo): {
  name: string;
  subnet: string;
  privileged: boolean;
  inventory: string;
  hosts: { name: string; address: string; roles: string[]; running: boolean }[];
} {
  return {
    name: info.name,
    subnet: info.subnet,
    privileged: info.privileged,
    inventory: info.inventoryFile,
    hosts: info.hostList.map((h) => ({ ...h, running: hostRunning(info, h.name) })),
  };
}
