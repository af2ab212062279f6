// The scripts of roles/pod-network/flannel-iptables-leftovers.ts, run by the real iptables in a
// network namespace of their own (unshare --net, as root like the rest of the suite): the rules
// flanneld's iptables mode writes (v0.28: its masquerade jump and chain in nat, its forward jump
// and chain in filter, for IPv4 and IPv6) are read, removed, and read again as none, while a
// rule of someone else's in the same chains stays.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FLANNEL_IPTABLES_REMOVAL, FLANNEL_IPTABLES_SCRIPT, parseFlannelIptables } from '../../roles/pod-network/flannel-iptables-leftovers.js';

const run = promisify(execFile);

/** flanneld's iptables rules as v0.28 writes them (pkg/trafficmngr/iptables), and one rule of another owner per chain. */
const FLANNEL_IPTABLES_MODE = `for t in iptables ip6tables; do
  if [ "$t" = iptables ]; then net=10.244.0.0/16; pods=10.244.1.0/24; other=192.0.2.0/24; else net=fd00:10:244::/56; pods=fd00:10:244:1::/64; other=2001:db8::/64; fi
  $t -t nat -N FLANNEL-POSTRTG
  $t -t nat -A POSTROUTING -m comment --comment 'flanneld masq' -j FLANNEL-POSTRTG
  $t -t nat -A POSTROUTING -s $other -j MASQUERADE
  $t -t nat -A FLANNEL-POSTRTG -m mark --mark 0x4000/0x4000 -m comment --comment 'flanneld masq' -j RETURN
  $t -t nat -A FLANNEL-POSTRTG -s $pods -d $net -m comment --comment 'flanneld masq' -j RETURN
  $t -t nat -A FLANNEL-POSTRTG -s $net ! -d $net -m comment --comment 'flanneld masq' -j MASQUERADE --random-fully
  $t -t filter -N FLANNEL-FWD
  $t -t filter -A FORWARD -m comment --comment 'flanneld forward' -j FLANNEL-FWD
  $t -t filter -A FORWARD -s $other -j ACCEPT
  $t -t filter -A FLANNEL-FWD -s $net -m comment --comment 'flanneld forward' -j ACCEPT
  $t -t filter -A FLANNEL-FWD -d $net -m comment --comment 'flanneld forward' -j ACCEPT
done`;

/** Runs `script` in a new network namespace after the setup, and prints the facts before and after. */
async function inFreshNetns(setup: string, between: string): Promise<{ before: string; after: string; others: string }> {
  const script = `set -e
${setup}
echo '>>> before'
${FLANNEL_IPTABLES_SCRIPT.text}
${between}
echo '>>> after'
${FLANNEL_IPTABLES_SCRIPT.text}
echo '>>> others'
iptables-save | grep -E '192\\.0\\.2\\.0/24' ; ip6tables-save | grep -E '2001:db8::/64'`;
  const { stdout } = await run('unshare', ['--net', 'bash', '-c', script]);
  const [, before = '', after = '', others = ''] = stdout.split(/^>>> (?:before|after|others)\n/m);
  return { before, after, others };
}

describe("flannel's iptables rules after a switch to nftables mode (real iptables, own network namespace)", () => {
  it('are all read, removed, and none is read again; the rules of others in the same chains stay', async () => {
    const { before, after, others } = await inFreshNetns(FLANNEL_IPTABLES_MODE, FLANNEL_IPTABLES_REMOVAL.text);
    const read = parseFlannelIptables(before);
    // Per family: two chain declarations, two jumps, three masquerade rules, two forward rules.
    for (const tool of ['iptables', 'ip6tables']) {
      const mine = read.filter((l) => l.tool === tool);
      expect(mine.map((l) => `${l.table} ${l.line.split(' ').slice(0, 2).join(' ')}`).sort()).toEqual(
        [
          'filter -A FLANNEL-FWD',
          'filter -A FLANNEL-FWD',
          'filter -A FORWARD',
          'filter :FLANNEL-FWD -',
          'nat -A FLANNEL-POSTRTG',
          'nat -A FLANNEL-POSTRTG',
          'nat -A FLANNEL-POSTRTG',
          'nat -A POSTROUTING',
          'nat :FLANNEL-POSTRTG -',
        ].sort(),
      );
    }
    expect(parseFlannelIptables(after)).toEqual([]);
    // iptables-save prints the filter table before nat.
    expect(others.trim().split('\n')).toEqual([
      '-A FORWARD -s 192.0.2.0/24 -j ACCEPT',
      '-A POSTROUTING -s 192.0.2.0/24 -j MASQUERADE',
      '-A FORWARD -s 2001:db8::/64 -j ACCEPT',
      '-A POSTROUTING -s 2001:db8::/64 -j MASQUERADE',
    ]);
  });

  it('reads none and removes nothing on a node that never had them', async () => {
    const { before, after, others } = await inFreshNetns(
      `iptables -t nat -A POSTROUTING -s 192.0.2.0/24 -j MASQUERADE; ip6tables -A FORWARD -s 2001:db8::/64 -j ACCEPT`,
      FLANNEL_IPTABLES_REMOVAL.text,
    );
    expect([parseFlannelIptables(before), parseFlannelIptables(after)]).toEqual([[], []]);
    expect(others.trim().split('\n')).toEqual(['-A POSTROUTING -s 192.0.2.0/24 -j MASQUERADE', '-A FORWARD -s 2001:db8::/64 -j ACCEPT']);
  });
});
