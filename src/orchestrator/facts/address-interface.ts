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

/** The same for an IPv6 address (`ip -o -6 addr show to ADDRESS/128`); the address as `ip` prints it may be written otherwise. */
export function parseIpv6AddressInterface(stdout: string): AddressInterface {
  // "2: eth0    inet6 fd00:231:30::11/64 scope global \ ..." (one line: `to ADDRESS/128` matches one address)
  const match = /^\d+:\s+(\S+)\s+inet6\s+[0-9a-fA-F:]+\/(\d+)\s/m.exec(stdout);
  return match ? { dev: (match[1] ?? '').replace(/@.*$/, ''), prefixLength: Number(match[2]) } : {};
}

export function ipv6AddressInterface(address: string): Fact<AddressInterface> {
  if (!/^[0-9a-fA-F:]+$/.test(address)) throw new Error(`invalid IPv6 address "${address}"`);
  return { key: `ipv6-address-interface:${address}`, script: sh`ip -o -6 addr show to ${`${address}/128`}`, parse: parseIpv6AddressInterface };
}
