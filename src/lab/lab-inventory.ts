// The kcluster inventory a lab writes for its hosts (pure).
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { LabSettings } from './lab-settings.js';
import { labHosts } from './lab-settings.js';

export function labInventoryYaml(settings: LabSettings, schemaPath: string): string {
  const doc = {
    cluster: { name: settings.name },
    ssh: {
      user: 'root',
      keyFile: join(settings.homeDir, 'id_ed25519'),
      knownHostsFile: join(settings.homeDir, 'known_hosts'),
    },
    hosts: labHosts(settings),
  };
  return `# yaml-language-server: $schema=${schemaPath}\n# Written by \`kcluster lab up\` for the lab "${settings.name}" (${settings.subnet}).\n${stringify(doc)}`;
}
