// The control plane's extra files (cluster.<component>.extraFiles, the OIDC CA) as tables: what
// the inventory lists and what the host's folders hold (as the fact's script prints it) in,
// the removal planned out. No host: the real path is the plan test over SSH
// (test/integration/cluster-roles-plan.test.ts) and test/e2e/ha.test.ts.
import { describe, expect, it } from 'vitest';
import type { ComponentFiles } from '../../../src/kubernetes/cluster/component-files.js';
import { extraFilesOnHost, extraFilesPruned, extraFilesWritten } from '../../../roles/control-plane/extra-files.js';
import { hostContext } from '../tasks/support/host-context.js';

const ctx = hostContext('node-1');
const files = (apiServer: string[], scheduler: string[] = []): ComponentFiles => ({
  'kube-apiserver': apiServer.map((name) => ({ name, content: Buffer.from(name) })),
  'kube-controller-manager': [],
  'kube-scheduler': scheduler.map((name) => ({ name, content: Buffer.from(name) })),
});
const present = (stdout: string) => extraFilesOnHost().parse(stdout, 0);
const planOf = (wanted: ComponentFiles, stdout: string) => extraFilesPruned(wanted)[0]!.plan({ present: present(stdout) } as never, ctx);

describe('control-plane extra files', () => {
  it("writes one secret 0600 file per listed file, in its component's folder", () => {
    expect(extraFilesWritten(files(['admission.yaml'], ['policy.yaml'])).map((t) => t.name)).toEqual([
      'file /etc/kubernetes/extra/kube-apiserver/admission.yaml',
      'file /etc/kubernetes/extra/kube-scheduler/policy.yaml',
    ]);
  });

  it("removes the files no longer listed, in every component's folder, and keeps the listed ones", () => {
    const change = planOf(
      files(['admission.yaml']),
      '/etc/kubernetes/extra/kube-apiserver/admission.yaml\n/etc/kubernetes/extra/kube-apiserver/old.conf\n/etc/kubernetes/extra/kube-scheduler/.hidden\n',
    );
    expect(change).toEqual({
      kind: 'delete',
      summary:
        'remove /etc/kubernetes/extra/kube-apiserver/old.conf, /etc/kubernetes/extra/kube-scheduler/.hidden (no longer in cluster.<component>.extraFiles or oidc.caFile)',
      payload: ['/etc/kubernetes/extra/kube-apiserver/old.conf', '/etc/kubernetes/extra/kube-scheduler/.hidden'],
    });
  });

  it('changes nothing when the folders hold exactly the listed files, or nothing', () => {
    expect(planOf(files(['admission.yaml']), '/etc/kubernetes/extra/kube-apiserver/admission.yaml\n').kind).toBe('none');
    expect(planOf(files([]), '').kind).toBe('none');
  });

  it('ignores lines outside the three folders (a shell message, another folder)', () => {
    expect(present('/etc/kubernetes/extra/etcd/x\nsh: warning\n/etc/kubernetes/extra/kube-apiserver/a\n')).toEqual(['/etc/kubernetes/extra/kube-apiserver/a']);
  });

  it('plans no removal when the files were not read (nothing to compare the host with)', () => {
    expect(extraFilesPruned(undefined)).toEqual([]);
    expect(extraFilesWritten(undefined)).toEqual([]);
  });
});
