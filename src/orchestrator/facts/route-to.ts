// Whether the host's kernel has a route to an address (`ip route get`): the first Service IP
// must be routable before kube-proxy's rules can catch traffic to it, or pods that talk to the
// API through the Service (flannel, CoreDNS) fail with "network is unreachable".
import { sh } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

export interface RouteState {
  readonly reachable: boolean;
  /** The interface the route leaves through, when there is one. */
  readonly dev?: string;
  /** What `ip` said when there is none. */
  readonly error?: string;
}

export function parseRoute(stdout: string): RouteState {
  const lines = stdout.trim().split('\n');
  const status = lines.pop() ?? '';
  if (!status.startsWith('exit ')) throw new Error('the route read printed no exit status');
  const text = lines.join(' ').trim();
  if (status !== 'exit 0') return { reachable: false, error: text || status };
  const dev = /\bdev (\S+)/.exec(text)?.[1];
  // "unreachable", "prohibit" and "blackhole" routes answer with an error already; a route
  // through "lo" to a non-local address would not reach a Service either.
  return dev !== undefined ? { reachable: true, dev } : { reachable: false, error: text || 'no route' };
}

export function routeTo(ip: string): Fact<RouteState> {
  if (!/^[0-9a-f.:]+$/i.test(ip)) throw new Error(`invalid IP address "${ip}"`);
  return { key: `route:${ip}`, script: sh`ip route get ${ip} 2>&1; echo "exit $?"`, parse: parseRoute };
}
