// The e2e files' start order (test/support/e2e-longest-first.ts): the list names every e2e file
// there is and no other, and the sequencer applies it to the e2e project only.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { E2E_LONGEST_FIRST, longestE2eFirst } from '../../support/e2e-longest-first.js';

const spec = (project: string, moduleId: string) => ({ project: { name: project }, moduleId }) as unknown as TestSpecification;

describe('the e2e start order', () => {
  it('lists each file of test/e2e once', () => {
    const files = readdirSync('test/e2e').filter((f) => f.endsWith('.test.ts'));
    expect([...E2E_LONGEST_FIRST].sort()).toEqual(files.sort());
  });

  it('starts unlisted e2e files first, then the listed ones in order, and leaves other projects where vitest put them', () => {
    const files = [
      spec('unit', '/r/test/unit/b.test.ts'),
      spec('e2e', '/r/test/e2e/day2.test.ts'),
      spec('e2e', '/r/test/e2e/new-one.test.ts'),
      spec('unit', '/r/test/unit/a.test.ts'),
      spec('e2e', '/r/test/e2e/cluster.test.ts'),
    ];
    expect(longestE2eFirst(files).map((f) => `${f.project.name}:${f.moduleId.split('/').pop()}`)).toEqual([
      'unit:b.test.ts',
      'e2e:new-one.test.ts',
      'e2e:cluster.test.ts',
      'unit:a.test.ts',
      'e2e:day2.test.ts',
    ]);
  });
});
