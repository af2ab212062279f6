// OS adapters: the family from os-release (ID, then ID_LIKE), the same decision made by the
// shell snippet on the host, each adapter's query parser, and the package fact end to end.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { adapterFor, osFamilyOf, UnsupportedOsError } from '../../../src/orchestrator/os/choose-adapter.js';
import { debianAdapter } from '../../../src/orchestrator/os/debian.js';
import { rhelAdapter } from '../../../src/orchestrator/os/rhel.js';
import { parseOsRelease } from '../../../src/orchestrator/os/os-release.js';
import { parsePerFamilyOutput, perFamilyScript } from '../../../src/orchestrator/os/family-script.js';
import { sh } from '../../../src/orchestrator/ssh/quote.js';
import { packageState, parsePackageState } from '../../../src/orchestrator/facts/package-state.js';
import { readFactLocally } from './support/read-fact-locally.js';

const RELEASES: Record<string, string> = {
  debian: 'ID=debian\nVERSION_ID="12"\n',
  ubuntu: 'ID=ubuntu\nID_LIKE=debian\n',
  mint: 'ID=linuxmint\nID_LIKE="ubuntu debian"\n',
  rocky: 'NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\n',
  fedora: "ID='fedora'\n",
  amazon: 'ID="amzn"\nID_LIKE="centos rhel fedora"\n',
  derivative: 'ID=myco\nID_LIKE=debian\n',
  alpine: 'ID=alpine\nVERSION_ID=3.20.0\n',
  arch: 'ID=arch\n',
};
const EXPECTED: Record<string, string | undefined> = {
  debian: 'debian',
  ubuntu: 'debian',
  mint: 'debian',
  rocky: 'rhel',
  fedora: 'rhel',
  amazon: 'rhel',
  derivative: 'debian',
  alpine: undefined,
  arch: undefined,
};

describe('choosing an adapter', () => {
  it.each(Object.keys(RELEASES))('%s', (name) => {
    expect(osFamilyOf(parseOsRelease(RELEASES[name]!))).toBe(EXPECTED[name]);
  });

  it('names the ID it found when no adapter fits', () => {
    expect(() => adapterFor(parseOsRelease(RELEASES['alpine']!))).toThrow(UnsupportedOsError);
    expect(() => adapterFor(parseOsRelease('ID=gentoo\nID_LIKE="funtoo"\n'))).toThrow(
      /unsupported OS: \/etc\/os-release has ID=gentoo ID_LIKE="funtoo"; kcluster knows the debian and rhel families/,
    );
  });

  it('the shell snippet on the host decides exactly like osFamilyOf (local /bin/sh)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-os-'));
    for (const [name, text] of Object.entries(RELEASES)) {
      const file = join(dir, `${name} os-release`);
      writeFileSync(file, text);
      const script = perFamilyScript((a) => sh`echo ${`query for ${a.family}`}`, [join(dir, 'absent'), file]);
      const out = spawnSync('/bin/sh', ['-c', script.text], { encoding: 'utf8' });
      const parsed = parsePerFamilyOutput(out.stdout);
      expect(parsed.family, name).toBe(EXPECTED[name]);
      expect(parsed.id).toBe(parseOsRelease(text).id);
      expect(parsed.rest.trim()).toBe(parsed.family ? `query for ${parsed.family}` : '');
    }
  });
});

describe('adapters', () => {
  it('debian: dpkg-query and apt-get, non-interactive, names quoted', () => {
    expect(debianAdapter.installPackages(['a', "b'c"]).text).toBe(
      "DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -- a 'b'\\''c' || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -- a 'b'\\''c'; }",
    );
    expect(debianAdapter.packageQuery('$(x)').text).toContain("-- '$(x)'");
    expect(debianAdapter.parsePackageQuery('installed 9.1-1\n')).toEqual({ installed: true, version: '9.1-1' });
    expect(debianAdapter.parsePackageQuery('config-files 1.0\n')).toEqual({ installed: false });
    expect(debianAdapter.parsePackageQuery('not-installed\n')).toEqual({ installed: false });
  });
  it('rhel: rpm and dnf', () => {
    expect(rhelAdapter.installPackages(['procps-ng']).text).toBe('dnf install -y -- procps-ng');
    expect(rhelAdapter.parsePackageQuery('installed 3.3.17-14.el9\n')).toEqual({ installed: true, version: '3.3.17-14.el9' });
    expect(rhelAdapter.parsePackageQuery('package nope is not installed\nnot-installed\n')).toEqual({ installed: false });
  });
});

describe('packageState', () => {
  it('knows an installed package and a missing one on this machine (local /bin/sh)', () => {
    const dpkg = spawnSync('dpkg-query', ['-W', '-f=${Version}', 'coreutils'], { encoding: 'utf8' }).stdout;
    expect(readFactLocally(packageState('coreutils'))).toEqual({ installed: true, version: dpkg, family: 'debian' });
    expect(readFactLocally(packageState("no-such-package-kc'$(touch pwned)"))).toEqual({ installed: false, family: 'debian' });
    expect(existsSync(join(process.cwd(), 'pwned'))).toBe(false);
  });
  it('parses an rpm host and refuses an unknown family with its ID', () => {
    expect(parsePackageState('family=rhel\nid=rocky\nlike=rhel centos fedora\ninstalled 9.0-1.el9\n')).toEqual({
      installed: true,
      version: '9.0-1.el9',
      family: 'rhel',
    });
    expect(() => parsePackageState('family=\nid=alpine\nlike=\n')).toThrow('ID=alpine');
    expect(packageState('x').key).toBe('package:x');
  });
});
