// The first host, in the order given, whose SSH port accepts a TCP connection within a few
// seconds: which control plane a command works through when one of them may be down (every
// host is probed at once, so a dead one costs one timeout, not one per host).
import { connect } from 'node:net';
import type { HostSettings } from '../inventory/model.js';

/**
 * Whether the host's first SSH hop accepts a connection: its bastion's port for a host behind
 * one (the controller has no route of its own to such a host, and probing it directly took
 * every host behind a bastion for down), else its own.
 */
export const sshPortAnswers = (host: HostSettings, timeoutMs: number): Promise<boolean> => {
  const hop = host.bastion ?? host.ssh;
  return portAnswers(hop.address, hop.port, timeoutMs);
};

/** Whether address:port accepts a TCP connection within timeoutMs. */
export function portAnswers(address: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function firstAnswering(hosts: readonly HostSettings[], timeoutMs = 3_000, probe = sshPortAnswers): Promise<HostSettings | undefined> {
  const answers = await Promise.all(hosts.map((h) => probe(h, timeoutMs)));
  return hosts.find((_, i) => answers[i]);
}
