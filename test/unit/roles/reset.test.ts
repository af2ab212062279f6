import { describe, expect, it } from 'vitest';
import { parseLeftovers, planReset } from '../../../roles/reset/index.js';

describe('reset role plan', () => {
  it('has nothing to do on a clean host', () => {
    expect(planReset(parseLeftovers('\n'))).toEqual({ kind: 'none', reason: 'nothing kcluster installs is left on this host' });
  });

  it('names everything it will remove', () => {
    const change = planReset(
      parseLeftovers(
        'path /etc/kubernetes\nbinary /usr/local/bin/kubelet\nunit kubelet.service\nlink cni0\nmount /var/lib/kubelet/pods/x/volumes\nrules iptables 42\n',
      ),
    );
    expect(change.kind).toBe('delete');
    if (change.kind !== 'delete') return;
    expect(change.summary).toBe(
      'remove 6 things kcluster installed or started (path /etc/kubernetes, binary /usr/local/bin/kubelet, unit kubelet.service, link cni0, ...)',
    );
    expect(change.diff).toBe(
      '- path /etc/kubernetes\n- binary /usr/local/bin/kubelet\n- unit kubelet.service\n- link cni0\n- mount /var/lib/kubelet/pods/x/volumes\n- rules iptables 42\n',
    );
  });

  it('refuses output it does not understand', () => {
    expect(() => parseLeftovers('garbage')).toThrow(/unexpected reset fact line/);
  });
});
