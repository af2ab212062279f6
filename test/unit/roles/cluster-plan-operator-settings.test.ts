// The operator's settings planned in check mode on fresh hosts, from recorded facts replayed
// by a fake connection (nothing runs): component flags and feature gates on each command line
// and in the kubelet's configuration; registries with credentials, a proxy, OIDC, API server
// files and the operator's manifests, on hosts where an earlier inventory's extraFiles are left
// on the control plane (scenario old-extra-files). Recordings: test/fixtures/facts/.
import { beforeAll, describe, expect, it } from 'vitest';
import { TLS_CIPHER_SUITES } from '../../../src/kubernetes/cluster/tls-ciphers.js';
import type { Scenario } from '../../support/plan-scenario.js';
import { planOverRecording } from '../../support/recorded-facts/plan-over-recording.js';
import { flagsVariant, REGISTRY_PASSWORD as password, settingsVariant } from '../../support/recorded-facts/plan-variants.js';

let one: Scenario;
beforeAll(async () => {
  one = await planOverRecording('empty-debian');
}, 60_000);

describe("the operator's component flags and feature gates (recorded facts, fake connection)", () => {
  let flags: Scenario;
  beforeAll(async () => {
    flags = await planOverRecording('empty-debian', flagsVariant);
  }, 60_000);

  it("go on each command line after kcluster's flags, quoted, sorted, the gates last; into the kubelet's configuration as a map, before the operator's own fields", () => {
    expect(flags.failures).toEqual([]);
    const gates = '--feature-gates=AnonymousAuthConfigurableEndpoints=false,InPlacePodVerticalScaling=true';
    expect(flags.diff('kcrec1', 'file /etc/kubernetes/manifests/kube-apiserver.yaml')).toContain(
      `+        - --tls-cipher-suites=${TLS_CIPHER_SUITES.join(',')}\n+        - "--max-requests-inflight=800"\n+        - "--oidc-issuer-url=https://login.example/realms/a b"\n+        - "${gates}"\n`,
    );
    expect(flags.diff('kcrec1', 'file /etc/kubernetes/manifests/kube-scheduler.yaml')).toContain(`+        - "--v=4"\n+        - "${gates}"\n`);
    expect(flags.diff('kcrec1', 'file /etc/kubernetes/manifests/kube-controller-manager.yaml')).toContain(`+        - "${gates}"\n`);
    expect(flags.diff('kcrec2', 'file /var/lib/kubelet/config.yaml')).toContain(
      "+featureGates:\n+  AnonymousAuthConfigurableEndpoints: false\n+  InPlacePodVerticalScaling: true\n+# The operator's settings (vars.kubeletConfig):\n+maxPods: 150\n+systemReserved:\n+  cpu: 500m\n",
    );
  });

  it('without any, the manifests and configuration files have no such line', () => {
    expect(one.diff('kcrec1', 'file /etc/kubernetes/manifests/kube-apiserver.yaml')).not.toContain('feature-gates');
    expect(one.diff('kcrec2', 'file /var/lib/kubelet/config.yaml')).not.toContain('featureGates');
  });
});

describe("the operator's registries, proxy and manifests (recorded facts, fake connection)", () => {
  let settings: Scenario;
  beforeAll(async () => {
    settings = await planOverRecording('old-extra-files', settingsVariant());
  }, 60_000);

  it("plans a hosts.toml per registry (secret), the proxy drop-ins, the API server's files for OIDC and admission, and never shows the credentials", () => {
    expect(settings.failures).toEqual([]);
    for (const host of ['kcrec1', 'kcrec2', 'kcrec3']) {
      expect(settings.planned.find((p) => p.host === host && p.task === 'registry registry.corp.example')?.summary).toMatch(
        /^create \/etc\/containerd\/certs\.d\/registry\.corp\.example\/hosts\.toml \(mode 0600, root:root; \d+ bytes, secret: content not shown\)$/,
      );
      expect(settings.diff(host, 'proxy for containerd.service')).toContain('+Environment="HTTP_PROXY=http://proxy.corp.example:3128"\n');
      expect(settings.diff(host, 'proxy for kubelet.service')).toMatch(
        /\+Environment="NO_PROXY=localhost,127\.0\.0\.1,10\.244\.0\.0\/16,10\.96\.0\.0\/12,\.svc,\.cluster\.local,kcrec1,[0-9.]+,kcrec2,[0-9.]+,kcrec3,[0-9.]+,\.corp\.example"\n/,
      );
    }
    expect(settings.diff('kcrec1', 'file /etc/containerd/config.toml')).toContain('+    config_path = "/etc/containerd/certs.d"\n');
    const everything = JSON.stringify(settings.planned) + settings.log.join('\n');
    expect(everything).not.toContain(password);
    expect(everything).not.toContain(Buffer.from(`robot:${password}`).toString('base64'));
    // The API server's files for its flags: on the control plane only, content hidden, mounted read-only.
    expect(
      settings.planned
        .filter((p) => p.task.startsWith('file /etc/kubernetes/extra/'))
        .map((p) => [p.host, p.task, /secret: content not shown|content \(secret: not shown\)/.test(p.summary)]),
    ).toEqual([
      ['kcrec1', 'file /etc/kubernetes/extra/kube-apiserver/admission.yaml', true],
      ['kcrec1', 'file /etc/kubernetes/extra/kube-apiserver/oidc-ca.crt', true],
    ]);
    const apiserver = settings.diff('kcrec1', 'file /etc/kubernetes/manifests/kube-apiserver.yaml');
    expect(apiserver).toContain(
      '+        - "--oidc-ca-file=/etc/kubernetes/extra/kube-apiserver/oidc-ca.crt"\n+        - "--oidc-client-id=kubernetes"\n+        - "--oidc-issuer-url=https://login.example"\n',
    );
    expect(apiserver).toContain('+        - name: extra-files\n+          mountPath: /etc/kubernetes/extra/kube-apiserver\n+          readOnly: true\n');
    expect(settings.diff('kcrec1', 'file /etc/kubernetes/manifests/kube-scheduler.yaml')).not.toContain('extra-files');
    // A file no longer listed is removed after the control plane's wait; a listed one is rewritten, not removed.
    expect(settings.planned.filter((p) => p.task === 'no extra files the inventory no longer lists').map((p) => [p.host, p.summary])).toEqual([
      ['kcrec1', 'remove /etc/kubernetes/extra/kube-apiserver/old-webhook.conf (no longer in cluster.<component>.extraFiles or oidc.caFile)'],
    ]);
    // Without a proxy nothing is written, and nothing is there to remove.
    expect(one.planned.filter((p) => p.task.startsWith('proxy for') || p.task.includes('kcluster-proxy.conf'))).toEqual([]);
  });
});
