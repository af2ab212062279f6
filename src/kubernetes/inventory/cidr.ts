// IPv4 CIDR parsing and overlap checks for pod, service and host addresses.

export interface Cidr {
  readonly base: number;
  readonly bits: number;
  readonly text: string;
}

export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = value * 256 + n;
  }
  return value;
}

/** A CIDR, or an explanation of what is wrong with it. */
export function parseCidr(text: string): Cidr | string {
  const m = /^([0-9.]+)\/([0-9]{1,2})$/.exec(text);
  if (!m) return 'must be an IPv4 CIDR such as 10.244.0.0/16';
  const base = parseIpv4(m[1]!);
  const bits = Number(m[2]);
  if (base === undefined) return `"${m[1]}" is not an IPv4 address`;
  if (bits < 1 || bits > 30) return 'prefix length must be 1-30';
  const size = 2 ** (32 - bits);
  if (base % size !== 0) {
    const start = base - (base % size);
    return `host bits are set: did you mean ${formatIpv4(start)}/${bits}?`;
  }
  return { base, bits, text };
}

export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

export function cidrContains(cidr: Cidr, address: number): boolean {
  const size = 2 ** (32 - cidr.bits);
  return address >= cidr.base && address < cidr.base + size;
}

export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  return cidrContains(a, b.base) || cidrContains(b, a.base);
}
