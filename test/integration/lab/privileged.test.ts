// A privileged lab host runs a real container: containerd and runc from Debian's packages
// (through the lab's apt proxy), a busybox root filesystem, runc through the lab's wrapper.
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kcluster } from '../support/test-lab.js';

const NAME = 'kcpriv';
const sshConfig = join(homedir(), '.kcluster', 'labs', NAME, 'ssh_config');
const ssh = (command: string): string => execFileSync('ssh', ['-F', sshConfig, `${NAME}1`, command], { encoding: 'utf8' });

describe('kcluster lab --privileged', () => {
  afterAll(async () => {
    await kcluster(['lab', 'down', '--name', NAME]);
  });

  it('runs a real container under containerd inside a lab host', async () => {
    const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '1', '--privileged', '--subnet', '10.231.2.0/24']);
    expect(up.code, up.stderr).toBe(0);
    ssh('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends containerd busybox-static >/dev/null');
    expect(ssh('systemctl is-active containerd').trim()).toBe('active');
    ssh('rm -rf /tmp/rootfs && mkdir -p /tmp/rootfs/bin /tmp/rootfs/proc /tmp/rootfs/dev /tmp/rootfs/sys && cp /bin/busybox /tmp/rootfs/bin/');
    const out = ssh(
      "ctr run --rm --runc-binary /usr/local/sbin/runc-lab --rootfs /tmp/rootfs kc-probe /bin/busybox sh -c 'echo hello-from-container; echo pid=$$'",
    );
    expect(out).toBe('hello-from-container\npid=1\n');
  });
});
