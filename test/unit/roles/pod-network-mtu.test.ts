// The pods' MTU follows the node's own link (the interface holding its inventory address) less
// vxlan's 50 bytes, instead of assuming a 1500-byte network (issue 43): jumbo frames give the
// pods room, a cloud overlay of 1450 bytes does not leave them fragmenting; a host without its
// address is refused by name.
import { describe, expect, it } from 'vitest';
import { parseLinkMtu } from '../../../src/orchestrator/facts/link-mtu.js';
import { podMtu } from '../../../roles/pod-network/index.js';

describe("the pods' MTU", () => {
  it('reads the interface holding the address and its MTU, or that none holds it', () => {
    expect(parseLinkMtu('dev host0 mtu 1500\n', '10.0.0.1')).toEqual({ found: true, iface: 'host0', mtu: 1500 });
    expect(parseLinkMtu('none\n', '10.0.0.1')).toEqual({ found: false });
    expect(() => parseLinkMtu('RTNETLINK answers: x', '10.0.0.1')).toThrow(/unexpected output reading the MTU of the interface holding 10\.0\.0\.1/);
  });

  it("is the link's less vxlan's headers: 1450 on 1500, 8950 on jumbo frames, 1400 inside a 1450-byte overlay", () => {
    expect(podMtu({ found: true, iface: 'eth0', mtu: 1500 }, 'w1', '10.0.0.2')).toBe(1450);
    expect(podMtu({ found: true, iface: 'bond0', mtu: 9000 }, 'w1', '10.0.0.2')).toBe(8950);
    expect(podMtu({ found: true, iface: 'ens3', mtu: 1450 }, 'w1', '10.0.0.2')).toBe(1400);
  });

  it('refuses a host that does not hold its inventory address, naming both and what to do', () => {
    expect(() => podMtu({ found: false }, 'w1', '203.0.113.7')).toThrow(
      /^w1: no interface holds 203\.0\.113\.7 \(its address in the inventory\).*give the host an address it has \(ip -o addr\)/,
    );
  });
});
