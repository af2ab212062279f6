// The kernel module task: its plan as a table of module states and boot files, and its fact
// script run by a real local sh (this machine's kernel: modules built in, none loadable).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileState } from '../../../src/orchestrator/facts/file-state.js';
import { kernelModuleState, parseKernelModuleState } from '../../../src/orchestrator/facts/kernel-module.js';
import { KERNEL_PREREQUISITES, kernelPrerequisiteTasks } from '../../../src/kubernetes/cluster/kernel-prerequisites.js';
import { kernelModule, persistedModule, planKernelModule } from '../../../src/orchestrator/tasks/kernel-module.js';
import { shellRaw } from '../../../src/orchestrator/ssh/quote.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const file = (content: string): FileState => ({
  exists: true,
  type: 'file',
  mode: '0644',
  owner: 'root',
  group: 'root',
  size: content.length,
  sha256: sha(content),
  content,
});
const options = { name: 'br_netfilter', purpose: 'bridged traffic' };
const bootFile = file(persistedModule(options));

describe('kernelModule plan', () => {
  const cases: { what: string; state: { available: boolean; loadable: boolean }; file: FileState; kind: string; summary: string; payload?: object }[] = [
    {
      what: 'available and listed for boot',
      state: { available: true, loadable: true },
      file: bootFile,
      kind: 'none',
      summary: 'br_netfilter is available, loaded at boot by /etc/modules-load.d/kcluster-br_netfilter.conf',
    },
    {
      what: 'built in (not loadable), listed for boot',
      state: { available: true, loadable: false },
      file: bootFile,
      kind: 'none',
      summary: 'br_netfilter is available, loaded at boot by /etc/modules-load.d/kcluster-br_netfilter.conf',
    },
    {
      what: 'available, not listed',
      state: { available: true, loadable: true },
      file: { exists: false },
      kind: 'update',
      summary: 'load it at boot (/etc/modules-load.d/kcluster-br_netfilter.conf)',
      payload: { load: false, persist: Buffer.from(persistedModule(options)) },
    },
    {
      what: 'missing, loadable, listed',
      state: { available: false, loadable: true },
      file: bootFile,
      kind: 'create',
      summary: 'load br_netfilter (modprobe)',
      payload: { load: true },
    },
    {
      what: 'missing, loadable, listed with other text',
      state: { available: false, loadable: true },
      file: file('br_netfilter\n'),
      kind: 'create',
      summary: 'load br_netfilter (modprobe); load it at boot (/etc/modules-load.d/kcluster-br_netfilter.conf)',
      payload: { load: true, persist: Buffer.from(persistedModule(options)) },
    },
  ];
  for (const c of cases) {
    it(c.what, () => {
      const change = planKernelModule(options, { ...c.state, kernel: '6.1.0-40-amd64' }, c.file);
      if (change.kind === 'none' || change.kind === 'skip') {
        expect({ kind: change.kind, summary: change.reason }).toEqual({ kind: c.kind, summary: c.summary });
        return;
      }
      expect({ kind: change.kind, summary: change.summary }).toEqual({ kind: c.kind, summary: c.summary });
      if (c.payload) expect(change.payload).toEqual(c.payload);
    });
  }

  it('a module the kernel does not have and cannot load fails with the fix', () => {
    expect(() => planKernelModule(options, { available: false, loadable: false, kernel: '6.1.0-40-amd64' }, bootFile)).toThrow(
      "kernel 6.1.0-40-amd64 has no br_netfilter module, needed for bridged traffic: install the kernel's modules (on Debian: the linux-image package of the running kernel) or use a kernel with br_netfilter built in",
    );
  });

  it('refuses a module name that is not one', () => {
    expect(() => kernelModuleState('br_netfilter; reboot')).toThrow('invalid kernel module name');
  });

  it('the node prerequisites are overlay and br_netfilter, first in both runtime roles', () => {
    expect(KERNEL_PREREQUISITES.map((m) => m.name)).toEqual(['overlay', 'br_netfilter']);
    expect(kernelPrerequisiteTasks(['runtime']).map((t) => t.name)).toEqual(['kernel module overlay', 'kernel module br_netfilter']);
    expect(kernelModule(options).invalidates).toContain('sysctl:*');
  });
});

describe('kernel module fact (local sh)', () => {
  const read = (probe: string) => {
    const fact = kernelModuleState('kc_no_such_module', shellRaw(probe));
    let out: string;
    let code = 0;
    try {
      out = execFileSync('/bin/sh', ['-c', fact.script.text], { encoding: 'utf8' });
    } catch (e) {
      code = (e as { status: number }).status;
      out = (e as { stdout: string }).stdout;
    }
    return fact.parse(out, code);
  };
  it('reports the probe and that modprobe cannot load a module that does not exist', () => {
    expect(read('true')).toMatchObject({ available: true, loadable: false });
    expect(read('false')).toMatchObject({ available: false, loadable: false });
    expect(read('true').kernel).toBe(execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim());
  });
  it("the prerequisites' probes find what this machine's kernel has", () => {
    for (const m of KERNEL_PREREQUISITES) {
      const fact = kernelModuleState(m.name, m.probe);
      const out = execFileSync('/bin/sh', ['-c', fact.script.text], { encoding: 'utf8' });
      // the lab and CI machines run overlay and bridge netfilter (their clusters need them)
      expect(fact.parse(out, 0).available, m.name).toBe(true);
    }
  });
  it('a section without its line is an error, not "missing"', () => {
    expect(() => parseKernelModuleState('')).toThrow('printed nothing');
  });
});
