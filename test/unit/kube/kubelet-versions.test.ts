import { describe, expect, it } from 'vitest';
import { kubeletVersionsOf } from '../../../src/kubernetes/kube/kubelet-versions.js';

describe('kubelet versions of a NodeList', () => {
  it('lists the nodes a kubelet reported on, and leaves out a Node without a version', () => {
    const nodes = {
      items: [
        { metadata: { name: 'cp1' }, status: { nodeInfo: { kubeletVersion: 'v1.35.8' } } },
        { metadata: { name: 'by-hand' } },
        { metadata: { name: 'not-started' }, status: { nodeInfo: { kubeletVersion: '' } } },
        { metadata: { name: 'w1' }, status: { nodeInfo: { kubeletVersion: 'v1.34.10' } } },
      ],
    };
    expect(kubeletVersionsOf(nodes)).toEqual([
      ['cp1', 'v1.35.8'],
      ['w1', 'v1.34.10'],
    ]);
  });
});
