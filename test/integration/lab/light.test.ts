// Light lab hosts (network namespace + overlay root + sshd, no systemd), for scale tests:
// each answers ssh as itself, and `lab down` removes namespaces, veths, mounts and processes.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kcluster } from '../support/test-lab.js';

const NAME = 'kclight';
const COUNT = 10;
const sshConfig = join(homedir(), '.kcluster', 'labs', NAME, 'ssh_config');

describe('kcluster lab --light', () => {
  afterAll(async () => {
    await kcluster(['lab', 'down', '--name', NAME]);
  });

  it(`brings up ${COUNT} light hosts and removes every trace of them`, async () => {
    const up = await kcluster(['lab', 'up', '--name', NAME, '--light', '--hosts', String(COUNT), '--subnet', '10.231.3.0/24']);
    expect(up.code, up.stderr).toBe(0);
    const names = Array.from({ length: COUNT }, (_, i) => `${NAME}${i + 1}`);
    const seen = names.map((h) => execFileSync('ssh', ['-F', sshConfig, h, 'hostname; cat /etc/machine-id'], { encoding: 'utf8' }).split('\n'));
    expect(seen.map((s) => s[0])).toEqual(names);
    expect(new Set(seen.map((s) => s[1])).size).toBe(COUNT);
    expect(execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })).toContain(`${NAME}1`);

    expect((await kcluster(['lab', 'down', '--name', NAME])).code).toBe(0);
    expect(execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })).not.toContain(NAME);
    expect(execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })).not.toMatch(new RegExp(`kl${NAME}|kc-${NAME}`));
    expect(readFileSync('/proc/mounts', 'utf8')).not.toContain(`/labs/${NAME}/`);
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain(`/labs/${NAME}/`);
    expect(existsSync(`/var/lib/kcluster/labs/${NAME}`)).toBe(false);
  });
});
