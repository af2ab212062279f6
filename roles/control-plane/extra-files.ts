// The files the components' flags reference (cluster.<component>.extraFiles, the OIDC CA) on a
// control plane: written to /etc/kubernetes/extra/<component>/ before the manifests that mount
// them, and the ones the inventory no longer lists removed once the components run manifests
// that no longer name them (after the control plane's wait). Those folders are kcluster's own:
// every file in them is one it wrote.
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import type { AnyTask, Task } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { managedFile } from '../../src/orchestrator/tasks/managed-file.js';
import { extraFilesDir, FILE_COMPONENTS, type ComponentFiles, type FileComponent } from '../../src/kubernetes/cluster/component-files.js';

const TAGS = ['control-plane', 'extra-files'];
const COMPONENTS = Object.keys(FILE_COMPONENTS) as FileComponent[];
const wantedPaths = (files: ComponentFiles): string[] => COMPONENTS.flatMap((c) => files[c].map((f) => `${extraFilesDir(c)}/${f.name}`));

/** Every file in the components' extra folders, one path a line. */
export function extraFilesOnHost(): Fact<string[]> {
  const dirs = COMPONENTS.map(extraFilesDir);
  return {
    key: 'extra-files:/etc/kubernetes/extra',
    script: sh`for d in ${dirs}; do for f in "$d"/* "$d"/.[!.]*; do [ -f "$f" ] && printf '%s\\n' "$f"; done; done; true`,
    become: true,
    parse: (stdout) => stdout.split('\n').filter((line) => dirs.some((d) => line.startsWith(`${d}/`))),
  };
}

export function extraFilesWritten(files: ComponentFiles | undefined): AnyTask[] {
  if (files === undefined) return [];
  return COMPONENTS.flatMap((component) =>
    files[component].map((f) =>
      managedFile({ path: `${extraFilesDir(component)}/${f.name}`, mode: 0o600, content: () => f.content, secret: true, tags: TAGS }),
    ),
  );
}

/** Removes what the inventory no longer lists; nothing when the files were not read (no inputs to compare with). */
export function extraFilesPruned(files: ComponentFiles | undefined): Task<{ present: Fact<string[]> }, string[]>[] {
  if (files === undefined) return [];
  const wanted = new Set(wantedPaths(files));
  return [
    {
      name: 'no extra files the inventory no longer lists',
      tags: TAGS,
      facts: () => ({ present: extraFilesOnHost() }),
      plan: (facts) => {
        const stale = facts.present.filter((f) => !wanted.has(f));
        if (stale.length === 0) return noChange('every file in /etc/kubernetes/extra is in the inventory');
        return { kind: 'delete', summary: `remove ${stale.join(', ')} (no longer in cluster.<component>.extraFiles or oidc.caFile)`, payload: stale };
      },
      apply: async (change, ctx) => {
        await execChecked(ctx.connection, sh`rm -f -- ${change.payload}`, { become: true, label: 'remove extra files no longer listed' });
      },
      invalidates: ['extra-files:/etc/kubernetes/extra'],
    },
  ];
}
