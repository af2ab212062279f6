// Which interface holds an address of the host, and the length of its prefix (`ip -o addr show
// to ADDRESS/32`): keepalived needs the interface, and the prefix says which addresses share
// the link with it (a virtual IP must).
import { sh } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

export interface AddressInterface {
  /** The interface the address is on; absent when no interface of the host has the address. */
  readonly dev?: string;
  readonly prefixLength?: number;
}

export function parseAddressInterface(stdout: string, address: string): AddressInterface {
  for (const line of stdout.split('\n')) {
    // "4: eth0    inet 192.0.2.2/24 brd 192.0.2.255 scope global eth0\ ..."
    const match = /^\d+:\s+(\S+)\s+inet\s+([0-9.]+)\/(\d+)\s/.exec(line);
    if (match && match[2] === address) return { dev: (match[1] ?? '').replace(/@.*$/, ''), prefixLength: Number(match[3]) };
  }
  return {};
}

export function addressInterface(address: string): Fact<AddressInterface> {
  if (!/^[0-9.]+$/.test(address)) throw new Error(`invalid IPv4 address "${address}"`);
  return { key: `address-interface:${address}`, script: sh`ip -o -4 addr show to ${`${address}/32`}`, parse: (out) => parseAddressInterface(out, address) };
}
