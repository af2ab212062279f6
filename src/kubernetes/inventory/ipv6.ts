// IPv6 addresses and CIDRs for dual-stack clusters: parsing, the canonical text form (RFC 5952:
// lowercase, the longest run of zero groups as "::"), containment and the nth address.
// BigInt, since an IPv6 address has 128 bits.

export interface Cidr6 {
  readonly base: bigint;
  readonly bits: number;
  readonly text: string;
}

const GROUP = /^[0-9a-fA-F]{1,4}$/;

/** The address as a 128-bit number, or undefined when the text is not an IPv6 address (no zone, no embedded IPv4). */
export function parseIpv6(text: string): bigint | undefined {
  if (!text.includes(':') || (text.match(/::/g) ?? []).length > 1) return undefined;
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  if (groups.length !== 8 || (tail !== undefined && left.length + right.length > 7)) return undefined;
  let value = 0n;
  for (const g of groups) {
    if (!GROUP.test(g)) return undefined;
    value = (value << 16n) | BigInt(parseInt(g, 16));
  }
  return value;
}

export function formatIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // The longest run of two or more zero groups (the first of equals) becomes "::".
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}

export const isIpv6 = (text: string): boolean => parseIpv6(text) !== undefined;

/** The canonical text of an IPv6 address; any other text as it is. */
export function canonicalIp(text: string): string {
  const v6 = parseIpv6(text);
  return v6 === undefined ? text : formatIpv6(v6);
}

/** An IPv6 CIDR, or an explanation of what is wrong with it. */
export function parseCidr6(text: string): Cidr6 | string {
  const m = /^([0-9a-fA-F:]+)\/([0-9]{1,3})$/.exec(text);
  if (!m) return 'must be an IPv6 CIDR such as fd00:10:244::/56';
  const base = parseIpv6(m[1]!);
  const bits = Number(m[2]);
  if (base === undefined) return `"${m[1]}" is not an IPv6 address`;
  if (bits < 1 || bits > 126) return 'prefix length must be 1-126';
  const size = 1n << BigInt(128 - bits);
  if (base % size !== 0n) return `host bits are set: did you mean ${formatIpv6(base - (base % size))}/${bits}?`;
  return { base, bits, text };
}

export function cidr6Contains(cidr: Cidr6, address: bigint): boolean {
  return address >= cidr.base && address < cidr.base + (1n << BigInt(128 - cidr.bits));
}

export function cidrs6Overlap(a: Cidr6, b: Cidr6): boolean {
  return cidr6Contains(a, b.base) || cidr6Contains(b, a.base);
}

export function nthIpv6(cidr: Cidr6, n: number): string {
  return formatIpv6(cidr.base + BigInt(n));
}
