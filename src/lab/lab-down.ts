// `kcluster lab down`: stop every host and remove everything the lab created.
import { join } from 'node:path';
import { labSettings, validateLabName } from './lab-settings.js';
import { readLabInfo } from './lab-state.js';
import { LabError, scriptsDir } from './lab-up.js';
import { runScript } from './run-script.js';
import { existsSync, readdirSync } from 'node:fs';
import { vmLabDown } from './vm-lab.js';

export async function labDown(name: string, log: (line: string) => void): Promise<{ found: boolean; durationMs: number }> {
  const problem = validateLabName(name);
  if (problem) throw new LabError(problem);
  const started = Date.now();
  const info = readLabInfo(name);
  // Without lab.json (an interrupted `up`), tear down by the names the lab would have used.
  const settings = info ?? labSettings({ name, hosts: 0, controlPlanes: 0, privileged: false, light: false, net: '', subnet: '' });
  // VMs first (a clean poweroff, then by pid), so nothing holds the bridge down.sh removes.
  const vmHosts = existsSync(join(settings.runDir, 'hosts'))
    ? readdirSync(join(settings.runDir, 'hosts')).filter((h) => existsSync(join(settings.runDir, 'hosts', h, 'vm.env')))
    : [];
  if (vmHosts.length > 0) await vmLabDown(settings, vmHosts, scriptsDir(), log);
  await runScript(join(scriptsDir(), 'down.sh'), { NAME: name, RUN_DIR: settings.runDir, HOME_DIR: settings.homeDir, BRIDGE: settings.bridge }, log);
  return { found: info !== undefined, durationMs: Date.now() - started };
}
