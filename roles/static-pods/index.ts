// The static-pods role, used on each control plane by `kcluster certs renew` after the
// control-plane and kubelet roles: waits until etcd, kube-apiserver, kube-controller-manager
// and kube-scheduler run the manifests now on disk and are Ready (src/facts/static-pods.ts),
// again after the kubelet restarted with its renewed certificate, before the next control
// plane is touched. See README.md beside this file.
import { noChange } from '../../src/engine/change.js';
import type { Fact } from '../../src/engine/fact.js';
import type { Role, Task } from '../../src/engine/types.js';
import { lagging, parseStaticPods, staticPods, STATIC_POD_COMPONENTS, type StaticPods } from '../../src/facts/static-pods.js';

const WAIT_TIMEOUT_MS = 300_000;

function waitForStaticPods(): Task<{ pods: Fact<StaticPods> }, null> {
  return {
    name: 'static pods run their current manifests',
    tags: ['control-plane'],
    facts: (ctx) => ({ pods: staticPods(ctx.host.name) }),
    plan: (facts) => {
      const behind = lagging(facts.pods);
      if (behind.length === 0) return noChange(`${STATIC_POD_COMPONENTS.join(', ')} run their current manifests and are Ready`);
      return { kind: 'run', summary: `wait for ${behind.join(', ')}${facts.pods.detail ? ` (API: ${facts.pods.detail})` : ''}`, payload: null };
    },
    apply: async (_change, ctx) => {
      const fact = staticPods(ctx.host.name);
      const deadline = Date.now() + WAIT_TIMEOUT_MS;
      let last: StaticPods | undefined;
      while (Date.now() < deadline) {
        if (ctx.signal.aborted) throw new Error('interrupted while waiting for the static pods');
        const result = await ctx.connection.exec(fact.script, { become: true, label: 'static pods', timeoutMs: 30_000 });
        last = parseStaticPods(result.stdout);
        if (lagging(last).length === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
      throw new Error(
        `${ctx.host.name}: after ${WAIT_TIMEOUT_MS / 1000} s still waiting for ${last ? lagging(last).join(', ') : 'the static pods'}${last?.detail ? ` (API: ${last.detail})` : ''}: ` +
          `look at crictl ps -a and journalctl -u kubelet on it; the next control plane was not touched`,
      );
    },
  };
}

export function staticPodsCurrentRole(): Role {
  return { name: 'static-pods-current', tags: ['control-plane'], tasks: [waitForStaticPods()] };
}
