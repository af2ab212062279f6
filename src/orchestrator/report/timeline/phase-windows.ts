// Each play's roles as phases over all their hosts: from the first host's start of the role
// to the last host's end of it, and the host that took longest in it. The table's view
// across hosts, for a cluster too big to read host by host.
import type { Timeline } from './model.js';

export interface PhaseWindow {
  readonly play: string;
  readonly playIndex: number;
  readonly role: string;
  readonly start: number;
  readonly end: number;
  readonly hosts: number;
  readonly slowest: { readonly host: string; readonly ms: number };
}

/** Pure: the roles of each play in the order they first started. */
export function phaseWindows(timeline: Timeline): PhaseWindow[] {
  const out: PhaseWindow[] = [];
  for (const play of timeline.plays) {
    const byRole = new Map<string, { start: number; end: number; hosts: Set<string>; slowest: { host: string; ms: number } }>();
    const spans = play.hosts.flatMap((lane) => lane.roles.map((role) => ({ host: lane.host, role })));
    for (const { host, role } of spans.sort((a, b) => a.role.start - b.role.start)) {
      const ms = role.end - role.start;
      const seen = byRole.get(role.role);
      if (!seen) {
        byRole.set(role.role, { start: role.start, end: role.end, hosts: new Set([host]), slowest: { host, ms } });
        continue;
      }
      seen.end = Math.max(seen.end, role.end);
      seen.hosts.add(host);
      if (ms > seen.slowest.ms) seen.slowest = { host, ms };
    }
    for (const [role, w] of byRole)
      out.push({ play: play.play, playIndex: play.index, role, start: w.start, end: w.end, hosts: w.hosts.size, slowest: w.slowest });
  }
  return out;
}
