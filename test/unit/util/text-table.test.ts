// The one text table: columns two spaces apart as wide as their widest cell, right-aligned where
// asked, no trailing spaces (a short last cell or an empty one leaves none).
import { describe, expect, it } from 'vitest';
import { textTable } from '../../../src/orchestrator/util/text-table.js';

describe('textTable', () => {
  it('aligns columns, right-aligns the ones asked, and leaves no trailing space', () => {
    expect(
      textTable(
        [
          ['host', 'ok', 'time'],
          ['cp1', '120', '2.0s'],
          ['worker10', '7', ''],
        ],
        { rightAligned: (c) => c === 1 },
      ),
    ).toBe(['host       ok  time', 'cp1       120  2.0s', 'worker10    7'].join('\n'));
  });

  it('takes rows of other lengths and an empty table', () => {
    expect(textTable([['A', 'B'], ['long']])).toBe('A     B\nlong');
    expect(textTable([])).toBe('');
  });
});
