// Architecture names (issue 42, arm64): every name a machine gives itself maps to Go's, an
// unknown one to nothing (callers refuse it by name), and a cross build refuses what only
// builds natively before any stage runs.
import { mkdtempSync } from 'node:fs';
import { arch } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { archOf, isArch } from '../../../src/kubernetes/artifacts/arch.js';
import { buildBundle } from '../../../src/kubernetes/artifacts/build/build-bundle.js';

describe('architectures', () => {
  it("maps Node's, uname's and Go's names to Go's", () => {
    expect(['x64', 'x86_64', 'amd64', 'arm64', 'aarch64'].map(archOf)).toEqual(['amd64', 'amd64', 'amd64', 'arm64', 'arm64']);
    expect(archOf('riscv64')).toBeUndefined();
    expect(isArch('arm64')).toBe(true);
    expect(isArch('aarch64')).toBe(false);
  });

  it('refuses to cross-build keepalived, naming it and what needs it, before any stage runs', async () => {
    const other = archOf(arch()) === 'arm64' ? 'amd64' : 'arm64';
    const cacheDir = mkdtempSync(join(tmpdir(), 'kc-cross-'));
    const events: string[] = [];
    await expect(
      buildBundle({
        wanted: [{ component: 'keepalived', version: '2.2.7' }],
        cacheDir,
        root: '/nonexistent',
        arch: other,
        onEvent: (e) => events.push(e.type),
      }),
    ).rejects.toThrow(`keepalived@2.2.7 cannot be cross-built for ${other} on this ${archOf(arch())!} machine`);
    expect(events).toEqual([]);
  });
});
