// Defaults of the demo role's vars; cluster, group and host vars override them.
export const demoDefaults = {
  motd: 'managed by kcluster',
  greeting: 'hello from kcluster',
  /** A harmless, per-network-namespace setting (writable inside containers too). */
  sysctlKey: 'net.ipv4.conf.all.log_martians',
  sysctlValue: '1',
};
