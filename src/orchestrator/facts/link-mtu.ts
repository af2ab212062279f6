// The MTU of the network interface that holds an address of the host: what a tunnel over that
// interface (vxlan: 50 bytes of headers) must leave room for in every packet it carries.
import { sh } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

export type LinkMtu = { readonly found: true; readonly iface: string; readonly mtu: number } | { readonly found: false };

export function parseLinkMtu(stdout: string, address: string): LinkMtu {
  const line = stdout.trim();
  if (line === 'none') return { found: false };
  const m = /^dev (\S+) mtu (\d+)$/.exec(line);
  if (!m) throw new Error(`unexpected output reading the MTU of the interface holding ${address}: "${line.slice(0, 80)}"`);
  return { found: true, iface: m[1]!, mtu: Number(m[2]) };
}

export function linkMtu(address: string): Fact<LinkMtu> {
  if (!/^[0-9a-f.:]+$/i.test(address)) throw new Error(`invalid IP address "${address}"`);
  return {
    key: `link-mtu:${address}`,
    // `ip -o addr show to ADDRESS` lists the interface whose address it is (one line per match).
    script: sh`dev=$(ip -o addr show to ${address} 2>/dev/null | awk '{ print $2; exit }'); if [ -n "$dev" ] && [ -r "/sys/class/net/$dev/mtu" ]; then echo "dev $dev mtu $(cat "/sys/class/net/$dev/mtu")"; else echo none; fi`,
    parse: (stdout) => parseLinkMtu(stdout, address),
  };
}
