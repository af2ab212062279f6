import { describe, expect, it } from 'vitest';
import { parseCidr, type Cidr } from '../../../src/kubernetes/inventory/cidr.js';
import { parsePodNetworkState, renumberActions, type PodNetworkState } from '../../../roles/pod-network/renumber.js';

const cidr = (text: string): Cidr => parseCidr(text) as Cidr;
const cluster = cidr('10.244.0.0/16');

// What the state script prints on a node whose Node now has 10.244.4.0/24 but which still
// runs with 10.244.1.0/24 (the first sandbox is listed twice: the script names it twice).
const movedNode = [
  'bridge 10.244.1.1/24',
  'flannel 10.244.1.1/24',
  'sandbox aaa|kube-system/kube-proxy-x||NODE',
  'sandbox bbb|kube-system/coredns-y|10.244.1.2|POD',
  'sandbox ccc|kube-system/kube-flannel-z||NODE',
  'sandbox ddd|default/web|10.244.4.7|POD',
  'sandbox aaa|kube-system/kube-proxy-x||NODE',
  'flannel-sandbox ccc',
  '',
].join('\n');

describe('pod network state', () => {
  it('reads the bridge, the lease and each sandbox once', () => {
    const state = parsePodNetworkState(movedNode);
    expect(state.bridge).toEqual(['10.244.1.1/24']);
    expect(state.flannelLease).toBe('10.244.1.1/24');
    expect(state.sandboxes.map((s) => [s.id, s.pod, s.ip, s.hostNetwork])).toEqual([
      ['aaa', 'kube-system/kube-proxy-x', '', true],
      ['bbb', 'kube-system/coredns-y', '10.244.1.2', false],
      ['ccc', 'kube-system/kube-flannel-z', '', true],
      ['ddd', 'default/web', '10.244.4.7', false],
    ]);
    expect(state.flannelSandboxes).toEqual(['ccc']);
    expect(state.runtimeError).toBeUndefined();
  });

  it('keeps why the runtime could not be asked', () => {
    expect(parsePodNetworkState('runtime-error crictl is not installed\n').runtimeError).toBe('crictl is not installed');
  });
});

describe('what moves a node into its pod CIDR', () => {
  it('deletes a bridge with the old gateway, removes pods outside the CIDR and flannel holding the old lease', () => {
    const actions = renumberActions(parsePodNetworkState(movedNode), cidr('10.244.4.0/24'), cluster);
    expect(actions.deleteBridge).toBe(true);
    expect(actions.removeSandboxes).toEqual([
      { id: 'bbb', pod: 'kube-system/coredns-y', why: '10.244.1.2 is outside 10.244.4.0/24' },
      { id: 'ccc', pod: 'kube-system/kube-flannel-z', why: "flanneld's lease 10.244.1.1/24 is outside 10.244.4.0/24", flannel: true },
    ]);
  });

  it('does nothing on a node already in its CIDR, or before the bridge and flannel exist', () => {
    const inLine: PodNetworkState = {
      bridge: ['10.244.4.1/24'],
      flannelLease: '10.244.4.1/24',
      sandboxes: [{ id: 'a', pod: 'default/web', ip: '10.244.4.7', hostNetwork: false }],
      flannelSandboxes: ['f'],
    };
    expect(renumberActions(inLine, cidr('10.244.4.0/24'), cluster)).toEqual({ deleteBridge: false, removeSandboxes: [] });
    expect(renumberActions({ bridge: [], sandboxes: [], flannelSandboxes: [] }, cidr('10.244.4.0/24'), cluster)).toEqual({
      deleteBridge: false,
      removeSandboxes: [],
    });
  });

  it('leaves alone host-network pods and addresses that are not from the pod network', () => {
    const state: PodNetworkState = {
      bridge: [],
      sandboxes: [
        { id: 'h', pod: 'kube-system/kube-proxy', ip: '10.231.0.12', hostNetwork: true },
        { id: 'o', pod: 'other/macvlan', ip: '192.168.5.4', hostNetwork: false },
      ],
      flannelSandboxes: [],
    };
    expect(renumberActions(state, cidr('10.244.4.0/24'), cluster).removeSandboxes).toEqual([]);
  });
});
