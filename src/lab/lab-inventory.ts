// The kcluster inventory a lab writes for its hosts (pure).
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { LabSettings } from './lab-settings.js';
import { labHosts, labIpv6Prefix } from './lab-settings.js';
import { DUAL_STACK_EXAMPLE } from '../kubernetes/inventory/cluster-cidrs.js';

export function labInventoryYaml(settings: LabSettings, schemaPath: string): string {
  const doc = {
    cluster: {
      name: settings.name,
      // A lab with IPv6 (`--ipv6`) makes a dual-stack cluster: kcluster's example ranges.
      ...(settings.ipv6 ? DUAL_STACK_EXAMPLE : {}),
      ...(settings.bundle !== undefined ? { artifacts: { source: 'bundle', bundle: settings.bundle } } : {}),
    },
    // The lab's cluster keeps its state (PKI, encryption keys, logs) beside the lab, not in
    // ~/.kcluster/<name>: `lab down` removes it with the hosts, so the next lab of the same name
    // never inherits a gone cluster's CA or a rotation it left half done, and a real cluster
    // that happens to share the name is never touched.
    stateDir: join(settings.homeDir, 'state'),
    ssh: {
      user: 'root',
      keyFile: join(settings.homeDir, 'id_ed25519'),
      knownHostsFile: join(settings.homeDir, 'known_hosts'),
    },
    // Lab adaptations (see ../shared/lab-recipe, "Kubernetes inside lab hosts"): this machine has
    // no CAP_SYS_RESOURCE, so runc goes through a wrapper; nspawn hosts use cgroupfs; the global
    // conntrack table size is not writable from a host. Real machines need none of these.
    // Lab hosts also share this machine's disk, whose free share moves with everything else on
    // it: the kubelet's default thresholds (a percentage of the whole disk) evicted test pods for
    // space they never used, so a lab sets absolute ones. For the same reason the kubelet's image
    // garbage collection (from 85% of the disk used) removed images imported for tests, which no
    // registry can give back offline: a lab collects images only when the disk is full.
    ...(settings.privileged
      ? {
          vars: {
            ociRuntimeBinary: '/usr/local/sbin/runc-lab',
            cgroupDriver: 'cgroupfs',
            kubeProxyConntrackMaxPerCore: 0,
            kubeletConfig: {
              evictionHard: { 'nodefs.available': '2Gi', 'imagefs.available': '2Gi', 'memory.available': '200Mi' },
              imageGCHighThresholdPercent: 100,
              imageGCLowThresholdPercent: 99,
            },
          },
        }
      : {}),
    // VMs under software emulation run 10-20x slower: the control plane may need longer to come up.
    ...(settings.vm !== undefined ? { vars: { readyTimeoutSeconds: 1200 } } : {}),
    hosts: labHosts(settings),
  };
  return `# yaml-language-server: $schema=${schemaPath}\n# Written by \`kcluster lab up\` for the lab "${settings.name}" (${settings.subnet}${settings.ipv6 ? `, ${labIpv6Prefix(settings.net)}/64` : ''}).\n${stringify(doc)}`;
}
