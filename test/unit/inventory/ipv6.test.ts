// IPv6 addresses and CIDRs (src/kubernetes/inventory/ipv6.ts): every way of writing an address
// reads as the same number and prints in RFC 5952's canonical form; CIDRs refuse what
// Kubernetes would refuse, with the fix.
import { describe, expect, it } from 'vitest';
import { canonicalIp, cidr6Contains, cidrs6Overlap, formatIpv6, nthIpv6, parseCidr6, parseIpv6 } from '../../../src/kubernetes/inventory/ipv6.js';

describe('IPv6 addresses', () => {
  it.each([
    ['fd00:231:30::11', 'fd00:231:30::11'],
    ['FD00:0231:0030:0000:0000:0000:0000:0011', 'fd00:231:30::11'],
    ['::', '::'],
    ['::1', '::1'],
    ['fd00::', 'fd00::'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['1:0:0:2:2:0:0:3', '1::2:2:0:0:3'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['1:0:3:4:5:6:7:8', '1:0:3:4:5:6:7:8'],
  ])('%s reads and prints as %s', (text, canonical) => {
    expect(formatIpv6(parseIpv6(text)!)).toBe(canonical);
    expect(canonicalIp(text)).toBe(canonical);
  });

  it.each(['10.0.0.1', '1::2::3', '1:2:3:4:5:6:7:8:9', '12345::', 'g::1', '1:2:3:4:5:6:7::8', 'fd00::1%eth0', ''])('%s is not an IPv6 address', (text) => {
    expect(parseIpv6(text)).toBeUndefined();
  });

  it('leaves anything else as it is in canonicalIp (IPv4, names)', () => {
    expect(canonicalIp('10.0.0.1')).toBe('10.0.0.1');
    expect(canonicalIp('cp1.example')).toBe('cp1.example');
  });
});

describe('IPv6 CIDRs', () => {
  it('parses, contains, overlaps and counts', () => {
    const pods = parseCidr6('fd00:10:244::/56');
    if (typeof pods === 'string') throw new Error(pods);
    expect(cidr6Contains(pods, parseIpv6('fd00:10:244:ff::1')!)).toBe(true);
    expect(cidr6Contains(pods, parseIpv6('fd00:10:245::')!)).toBe(false);
    const services = parseCidr6('fd00:10:96::/112');
    if (typeof services === 'string') throw new Error(services);
    expect(cidrs6Overlap(pods, services)).toBe(false);
    expect(cidrs6Overlap(pods, parseCidr6('fd00:10::/32') as never)).toBe(true);
    expect(nthIpv6(services, 10)).toBe('fd00:10:96::a');
  });

  it.each([
    ['fd00:10:244::1/56', 'host bits are set: did you mean fd00:10:244::/56?'],
    ['fd00:10:244::/0', 'prefix length must be 1-126'],
    ['fd00:10:244::/127', 'prefix length must be 1-126'],
    ['fd00:10:244::', 'must be an IPv6 CIDR such as fd00:10:244::/56'],
    ['fd00::10::/64', '"fd00::10::" is not an IPv6 address'],
  ])('%s: %s', (text, problem) => {
    expect(parseCidr6(text)).toBe(problem);
  });
});
