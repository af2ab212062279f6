// Two control planes without a load balancer, on Docker Engine, planned in check mode on fresh
// hosts from recorded facts replayed by a fake connection (nothing runs): the API proxy on every
// node, the docker role instead of containerd, each control plane with its own address.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../support/plan-scenario.js';
import { planOverRecording } from '../../support/recorded-facts/plan-over-recording.js';
import { haDockerVariant } from '../../support/recorded-facts/plan-variants.js';

describe('two control planes without a load balancer, on Docker (recorded facts, fake connection)', () => {
  let one: Scenario;
  let ha: Scenario;
  beforeAll(async () => {
    one = await planOverRecording('empty-debian');
    ha = await planOverRecording('empty-debian', haDockerVariant);
  }, 60_000);

  it('plans without a failure', () => {
    expect(ha.failures).toEqual([]);
    expect(ha.exitCode).toBe(3);
  });

  it('api-proxy: every node balances across both API servers, through a local port the kubelet uses', () => {
    for (const host of ['kcrec1', 'kcrec2', 'kcrec3']) {
      expect(ha.tasks(host, 'api-proxy')).toEqual([
        'binary /usr/local/bin/kcluster-apiproxy',
        'file /etc/systemd/system/kcluster-apiproxy.service',
        'service kcluster-apiproxy.service enabled, started',
      ]);
    }
    const unit = ha.diff('kcrec3', 'file /etc/systemd/system/kcluster-apiproxy.service');
    expect(unit).toContain('10.231.7.11:6443');
    expect(unit).toContain('10.231.7.12:6443');
    expect(one.tasks('kcrec2', 'api-proxy')).toEqual([]);
  });

  it('docker: Docker Engine from the OS packages, cri-dockerd, the kubelet on cri-dockerd; no containerd role', () => {
    expect(ha.tasks('kcrec3', 'docker')).toEqual([
      'kernel module overlay',
      'kernel module br_netfilter',
      'file /etc/docker/daemon.json',
      'Docker Engine packages present',
      'binary /usr/local/bin/cri-dockerd',
      'file /etc/systemd/system/cri-docker.service',
      'file /etc/crictl.yaml',
      'service docker.service enabled, started',
      'service cri-docker.service enabled, started',
    ]);
    expect(ha.tasks('kcrec3', 'containerd')).toEqual([]);
    expect(ha.diff('kcrec3', 'file /etc/docker/daemon.json')).toContain('native.cgroupdriver=systemd');
    expect(ha.diff('kcrec3', 'file /var/lib/kubelet/config.yaml')).toContain('+containerRuntimeEndpoint: unix:///run/cri-dockerd.sock');
  });

  it('control-plane on both control planes, each with its own address, its API server on its own etcd member', () => {
    expect(ha.diff('kcrec2', 'file /etc/kubernetes/manifests/kube-apiserver.yaml')).toContain('+        - --advertise-address=10.231.7.12\n');
    expect(ha.diff('kcrec2', 'file /etc/kubernetes/manifests/kube-apiserver.yaml')).toContain('+        - --etcd-servers=https://127.0.0.1:2379\n');
    expect(ha.tasks('kcrec3', 'control-plane')).toEqual([]);
  });
});
