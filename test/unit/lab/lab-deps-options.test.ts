// `kcluster lab deps --vm` and `--vagrant` add QEMU (and Vagrant with libvirt) to what the
// install script installs (issue 44: QEMU came only with an environment variable the help never
// named). The real script runs, with stand-ins for id, dpkg-query and apt-get on PATH (named
// fake-*: nothing is installed): it asks apt-get for exactly the missing packages.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/support/run-cli.js';

function fakeTools(): { bin: string; log: string } {
  const bin = mkdtempSync(join(tmpdir(), 'kc-deps-'));
  const log = join(bin, 'apt-get.log');
  const tool = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  tool('id', 'echo 0');
  // Everything is installed but QEMU, Vagrant and libvirt's pieces.
  tool('dpkg-query', 'case "$3" in qemu-*|vagrant*|libvirt-*|dnsmasq-base) exit 1;; *) echo "install ok installed";; esac');
  tool('apt-get', `echo "$@" >> ${log}`);
  tool('pgrep', 'exit 0');
  return { bin, log };
}

describe('kcluster lab deps', () => {
  it.each([
    [[], undefined],
    [['--vm'], 'install -y -qq --no-install-recommends qemu-system-x86'],
    [['--vagrant'], 'install -y -qq --no-install-recommends qemu-system-x86 qemu-utils vagrant vagrant-libvirt libvirt-daemon-system dnsmasq-base'],
  ])('lab deps %j installs what is missing for it', async (flags, installs) => {
    const { bin, log } = fakeTools();
    const r = await runCli(['lab', 'deps', ...flags], { PATH: `${bin}:${process.env['PATH'] ?? ''}`, POLICY_RC_D: join(bin, 'policy-rc.d') });
    expect(r.code).toBe(0);
    const asked = (() => {
      try {
        return readFileSync(log, 'utf8');
      } catch {
        return '';
      }
    })();
    if (installs === undefined) expect(asked).toBe('');
    else expect(asked.split('\n')).toContain(installs);
  });
});
