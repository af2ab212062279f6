// A stage's cache key: everything its output depends on. The recipe and the shared library,
// the sources kcluster carries for it, its version, the toolchain and architecture, and the
// outputs of the stages it reads. A changed recipe or a new version rebuilds only that stage.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { BuildStage } from './build-plan.js';

export interface KeyInputs {
  /** The repository (or installed package) root: bundle/recipes and the sources are under it. */
  readonly root: string;
  readonly goToolchain: string;
  readonly arch: string;
  /** The output folders of the stages this one reads (their names carry their own keys). */
  readonly dependencyDirs: readonly string[];
}

function filesUnder(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

export function recipePath(root: string, stage: Pick<BuildStage, 'name'>): string {
  return join(root, 'bundle', 'recipes', `${stage.name}.sh`);
}

/** 12 hex digits: enough to tell recipes apart in one cache, short enough for a path. */
export function stageKey(stage: BuildStage, inputs: KeyInputs): string {
  const hash = createHash('sha256');
  const add = (label: string, value: string | Buffer): void => {
    hash.update(`${label}\0${value.length}\0`);
    hash.update(value);
  };
  if (stage.origin === 'release') {
    // Downloaded, not built: the release's published checksums fix the content.
    add('release', `${stage.name}@${stage.version}`);
  } else {
    add('recipe', readFileSync(recipePath(inputs.root, stage)));
    add('lib', readFileSync(join(inputs.root, 'bundle', 'recipes', 'lib.sh')));
  }
  for (const [name, value] of Object.entries(stage.env ?? {}).sort()) add(`env ${name}`, value);
  for (const dir of stage.sources) for (const file of filesUnder(inputs.root, dir)) add(`source ${file}`, readFileSync(join(inputs.root, file)));
  add('version', stage.version);
  add('toolchain', stage.go ? inputs.goToolchain : 'none');
  add('arch', inputs.arch);
  for (const dir of inputs.dependencyDirs) add('after', basename(dir));
  return hash.digest('hex').slice(0, 12);
}
