// In nftables mode (cluster.kubeProxy.mode: nftables) flanneld writes its masquerade and forward
// rules to its own nftables tables, and on start it means to delete what its iptables mode left.
// That clean-up misses both of them (flannel v0.28): it looks for FLANNEL-FWD in the nat table
// (flanneld puts it in filter), and cannot delete FLANNEL-POSTRTG while POSTROUTING still jumps
// to it. A cluster switched from iptables mode would keep flannel's masquerade jump and its
// ACCEPT of the pod network in FORWARD for ever. This task removes them. It runs after
// addons-running, which waits until every node runs the rolled flanneld: the old one rewrote
// its rules every few seconds.
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { readFacts } from '../../src/orchestrator/engine/read-facts.js';
import type { Role, Task } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';

/** One line of iptables-save (or ip6tables-save) that names a flannel chain. */
export interface FlannelIptablesLine {
  /** iptables or ip6tables */
  readonly tool: string;
  readonly table: string;
  readonly line: string;
}

export const FLANNEL_IPTABLES_SCRIPT = sh`for t in iptables ip6tables; do
  command -v "$t-save" >/dev/null 2>&1 || continue
  "$t-save" 2>/dev/null | awk -v t="$t" '/^\\*/ { table = substr($0, 2) } /FLANNEL-/ && !/^#/ { print t, table, $0 }'
done
true`;

export function parseFlannelIptables(stdout: string): FlannelIptablesLine[] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [tool = '', table = '', ...rest] = l.split(' ');
      return { tool, table, line: rest.join(' ') };
    });
}

export function flannelIptablesLines(): Fact<FlannelIptablesLine[]> {
  return { key: 'flannel-iptables-lines', become: true, script: FLANNEL_IPTABLES_SCRIPT, parse: (stdout) => parseFlannelIptables(stdout) };
}

// The jumps as flanneld writes them (its iptables traffic manager); the chains go once empty.
export const FLANNEL_IPTABLES_REMOVAL = sh`for t in iptables ip6tables; do
  command -v "$t" >/dev/null 2>&1 || continue
  while "$t" -w -t nat -D POSTROUTING -m comment --comment 'flanneld masq' -j FLANNEL-POSTRTG 2>/dev/null; do :; done
  while "$t" -w -t filter -D FORWARD -m comment --comment 'flanneld forward' -j FLANNEL-FWD 2>/dev/null; do :; done
  for c in nat:FLANNEL-POSTRTG filter:FLANNEL-FWD; do
    if "$t" -w -t "\${c%%:*}" -S "\${c#*:}" >/dev/null 2>&1; then "$t" -w -t "\${c%%:*}" -F "\${c#*:}" && "$t" -w -t "\${c%%:*}" -X "\${c#*:}"; fi
  done
done
true`;

const describe = (lines: readonly FlannelIptablesLine[]): string => lines.map((l) => `${l.tool} ${l.table}: ${l.line}`).join('; ');

export function flannelIptablesRemoved(): Task<{ lines: Fact<FlannelIptablesLine[]> }, null> {
  return {
    name: "flannel's iptables rules gone (it runs in nftables mode)",
    tags: ['pod-network'],
    facts: () => ({ lines: flannelIptablesLines() }),
    plan: (facts) =>
      facts.lines.length === 0
        ? noChange('no iptables rule of flannel')
        : { kind: 'run', summary: `remove ${facts.lines.length} iptables line(s) flannel's iptables mode left: ${describe(facts.lines)}`, payload: null },
    apply: async (_change, ctx) => {
      await execChecked(ctx.connection, FLANNEL_IPTABLES_REMOVAL, { become: true, label: "remove flannel's iptables rules" });
      const [left] = await readFacts(ctx.connection, [flannelIptablesLines()] as const, { label: "read flannel's iptables rules again" });
      if (left.length > 0)
        throw new Error(
          `flannel's iptables rules are still there after their removal: ${describe(left)}: is an older flanneld still running on this node (crictl ps --name kube-flannel)? Remove them with iptables -D, or run apply again once it is gone`,
        );
    },
  };
}

/** After addons-running, on every node of a cluster whose flannel runs in nftables mode. */
export function flannelIptablesLeftoversRole(): Role {
  return { name: 'pod-network-leftovers', tags: ['pod-network'], tasks: [flannelIptablesRemoved()] };
}
