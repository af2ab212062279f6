// The files each control-plane component's manifest hashes: every name resolves to a file the
// role writes, and a name that does not stops the role from being built (it used to hash as
// the text "missing <name>", so a change to the real file restarted nothing).
import { describe, expect, it } from 'vitest';
import type { ClusterInputs } from '../../../src/kubernetes/cluster/cluster-inputs.js';
import { COMPONENT_READS, componentReads } from '../../../roles/control-plane/component-reads.js';
import { controlPlaneFiles } from '../../../roles/control-plane/files.js';

// controlPlaneFiles reads the PKI and the inventory only inside each file's content function.
const written = controlPlaneFiles({ pki: {}, inventory: {} } as unknown as ClusterInputs).map((f) => f.path);

describe('control-plane component reads', () => {
  it('resolves every shipped name to a file the role writes', () => {
    const reads = componentReads(written);
    expect([...reads.keys()]).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
    for (const paths of reads.values()) for (const path of paths) expect(written).toContain(path);
    expect(reads.get('kube-apiserver')).toContain('/etc/kubernetes/pki/apiserver.crt');
    expect(reads.get('kube-scheduler')).toEqual(['/etc/kubernetes/scheduler.conf']);
  });

  it('throws naming the component, the unknown name and its path, and where to fix it', () => {
    const reads = { ...COMPONENT_READS, 'kube-scheduler': ['/etc/kubernetes/scheduler.conf', 'shceduler.key'] };
    expect(() => componentReads(written, reads)).toThrow(
      /control-plane role: .*names files the role does not write: kube-scheduler: "shceduler\.key" \(\/etc\/kubernetes\/pki\/shceduler\.key\)\. Fix the name, or add the file to controlPlaneFiles/,
    );
  });

  it('throws when a file the table names is no longer written', () => {
    expect(() => componentReads(written.filter((p) => p !== '/etc/kubernetes/pki/sa.pub'))).toThrow(
      /kube-apiserver: "sa\.pub" \(\/etc\/kubernetes\/pki\/sa\.pub\)/,
    );
  });
});
