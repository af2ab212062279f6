// Which control plane a command works through: the first, in inventory order, whose SSH port
// answers. The real TCP probe against loopback (a listening port and a closed one), then the
// order rule with a fake probe (named so).
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { HostSettings } from '../../../src/orchestrator/inventory/model.js';
import { firstAnswering, sshPortAnswers } from '../../../src/orchestrator/ssh/first-answering.js';

const host = (name: string, port: number): HostSettings => ({ name, ssh: { address: '127.0.0.1', port } }) as unknown as HostSettings;

describe('the first control plane that answers', () => {
  it('probes a real port: a listening one answers, a closed one does not', async () => {
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const open = (server.address() as AddressInfo).port;
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const port = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(port));
      });
    });
    try {
      expect(await sshPortAnswers(host('up', open), 2_000)).toBe(true);
      expect(await sshPortAnswers(host('down', closed), 2_000)).toBe(false);
      expect((await firstAnswering([host('down', closed), host('up', open)], 2_000))?.name).toBe('up');
    } finally {
      server.close();
    }
  });

  it("probes a host behind a bastion through its first hop: the bastion's port, not the host's own address", async () => {
    const bastion = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => bastion.listen(0, '127.0.0.1', resolve));
    const port = (bastion.address() as AddressInfo).port;
    // 10.231.99.99 is a lab address no host has: the controller has no route of its own to it.
    const behind = {
      name: 'cp1',
      ssh: { address: '10.231.99.99', port: 22 },
      bastion: { name: 'jump', address: '127.0.0.1', port },
    } as unknown as HostSettings;
    try {
      expect(await sshPortAnswers(behind, 2_000)).toBe(true);
    } finally {
      bastion.close();
    }
  });

  it('keeps inventory order among those that answer (fake probe), and is undefined when none does', async () => {
    const fakeProbe = (answering: string[]) => async (h: HostSettings) => answering.includes(h.name);
    const hosts = [host('cp1', 1), host('cp2', 2), host('cp3', 3)];
    expect((await firstAnswering(hosts, 100, fakeProbe(['cp3', 'cp2'])))?.name).toBe('cp2');
    expect(await firstAnswering(hosts, 100, fakeProbe([]))).toBeUndefined();
  });
});
