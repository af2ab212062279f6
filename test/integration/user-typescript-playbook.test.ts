// A user's own playbook in TypeScript, in a project of its own that depends on kcluster (linked
// here as npm would install it) and typescript: it imports `kcluster` by its package name, types
// its role and vars, imports a local role as `./roles/banner.js` (a .ts file, the NodeNext
// convention), and `kcluster run playbook.ts` runs it over real SSH on the lab hosts on Node 20;
// a rerun changes nothing. A type error is not a load error (transpiled file by file), a syntax
// error is, with the file named.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { kcluster, parseEvents, repoRoot, sshHost, testLab, type TestLab } from './support/test-lab.js';

const BANNER = '/etc/kcluster-user-ts-banner';

function userProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kc-user-ts-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(repoRoot, join(dir, 'node_modules', 'kcluster'));
  symlinkSync(join(repoRoot, 'node_modules', 'typescript'), join(dir, 'node_modules', 'typescript'));
  symlinkSync(join(repoRoot, 'node_modules', '@types'), join(dir, 'node_modules', '@types'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
      files: ['playbook.ts'],
    }),
  );
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'my-automation', private: true, type: 'module', dependencies: { kcluster: '*', typescript: '*' } }),
  );
  mkdirSync(join(dir, 'roles'));
  writeFileSync(
    join(dir, 'roles', 'banner.ts'),
    `import { managedFile, type HostContext, type Role } from 'kcluster';

export interface BannerVars {
  readonly greeting: string;
}

const greeting = (ctx: HostContext): string => (ctx.vars as unknown as BannerVars).greeting;

export const banner: Role = {
  name: 'banner',
  defaults: { greeting: 'hello from TypeScript' } satisfies BannerVars,
  tasks: [managedFile({ path: '${BANNER}', mode: 0o644, content: (ctx) => \`\${greeting(ctx)} on \${ctx.host.name}\\n\` })],
};
`,
  );
  writeFileSync(
    join(dir, 'playbook.ts'),
    `import type { Playbook } from 'kcluster';
import { demoRole } from 'kcluster/roles/demo';
import { banner } from './roles/banner.js';

const playbook: Playbook = {
  name: 'user-banner',
  description: 'a user playbook written in TypeScript, with a role kcluster ships',
  plays: [{ name: 'banner', hosts: 'all', roles: [banner, ...(process.env['KC_WITH_DEMO'] ? [demoRole] : [])] }],
};
export default playbook;
`,
  );
  writeFileSync(join(dir, 'broken.ts'), `const x: number = ;\nexport default x;\n`);
  return dir;
}

const changedPerHost = (stdout: string): Record<string, number> => {
  const end = parseEvents(stdout).find((e) => e['type'] === 'run-end') as { summary: { hosts: { host: string; changed: number }[] } };
  return Object.fromEntries(end.summary.hosts.map((h) => [h.host, h.changed]));
};

describe("a user's TypeScript playbook importing kcluster", () => {
  let lab: TestLab;
  let project: string;
  beforeAll(async () => {
    lab = testLab();
    project = userProject();
    for (const host of lab.hosts) await sshHost(lab, host.name, `rm -f ${BANNER}`);
  });

  it('runs over real SSH, with its typed role from a local .ts file, and a rerun changes nothing', async () => {
    const first = await kcluster(['run', join(project, 'playbook.ts'), '-i', lab.inventoryFile, '--output', 'json']);
    expect(first.code, first.stderr).toBe(0);
    expect(Object.values(changedPerHost(first.stdout))).toEqual(lab.hosts.map(() => 1));
    for (const host of lab.hosts) expect((await sshHost(lab, host.name, `cat ${BANNER}`)).stdout).toBe(`hello from TypeScript on ${host.name}\n`);
    const again = await kcluster(['run', join(project, 'playbook.ts'), '-i', lab.inventoryFile, '--output', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(Object.values(changedPerHost(again.stdout))).toEqual(lab.hosts.map(() => 0));
  });

  it('type-checks against the types kcluster ships (tsc --noEmit in the project)', async () => {
    const { execFile } = await import('node:child_process');
    const result = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], (error, stdout, stderr) =>
        resolve({ code: error ? 1 : 0, out: stdout + stderr }),
      ),
    );
    expect(result.out).toBe('');
    expect(result.code).toBe(0);
  });

  it('imports a shipped role from kcluster/roles/<name>', async () => {
    const r = await kcluster(['run', join(project, 'playbook.ts'), '-i', lab.inventoryFile, '--output', 'json', '--check'], { KC_WITH_DEMO: '1' });
    expect(r.stderr).not.toContain('cannot load');
    const roles = new Set(
      parseEvents(r.stdout)
        .filter((e) => e['type'] === 'role-start')
        .map((e) => e['role']),
    );
    expect([...roles].sort()).toEqual(['banner', 'demo']);
  });

  it('a syntax error is a load error that names the file, before any host is touched', async () => {
    const r = await kcluster(['run', join(project, 'broken.ts'), '-i', lab.inventoryFile]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot load the playbook module ${join(project, 'broken.ts')}: ${join(project, 'broken.ts')}: Expression expected.`);
  });
});
