// Defaults of the demo role's vars; cluster, group and host vars override them.
import type { Vars } from '../../src/orchestrator/inventory/model.js';

export const demoDefaults: Vars = {
  motd: 'managed by kcluster',
  greeting: 'hello from kcluster',
};

/**
 * A harmless per-network-namespace setting: inside a systemd-nspawn or other container only
 * /proc/sys/net is writable, and this one changes nothing but logging.
 */
export const DEMO_SYSCTL = { key: 'net.ipv4.conf.all.log_martians', value: '1', persistFile: '/etc/sysctl.d/90-kcluster-demo.conf' } as const;

export const DEMO_SERVICE = 'kcluster-demo.service';
