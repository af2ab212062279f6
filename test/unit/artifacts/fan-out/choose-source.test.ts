import { describe, expect, it } from 'vitest';
import { chooseSource, type HolderState } from '../../../../src/kubernetes/artifacts/fan-out/choose-source.js';

const limits = { controllerCopies: 2, perHolder: 2, trustedIdleMs: 30_000 };
const holder = (host: string, active: number, lastUsedMs = 1000, sinceMs = 0): HolderState => ({ host, active, lastUsedMs, sinceMs });

describe('chooseSource: where one host gets its copy of an artifact', () => {
  it('sends the first copies from the controller while no host holds one', () => {
    expect(chooseSource({ controllerSends: 0, inFlight: 0, holders: [] }, 1000, limits)).toEqual({ kind: 'controller', reason: 'first copies' });
    expect(chooseSource({ controllerSends: 1, inFlight: 1, holders: [] }, 1000, limits)).toEqual({ kind: 'controller', reason: 'first copies' });
  });

  it('waits for a copy on its way once the controller sent its copies', () => {
    expect(chooseSource({ controllerSends: 2, inFlight: 2, holders: [] }, 1000, limits)).toEqual({ kind: 'wait' });
  });

  it('prefers a holder with room over the controller, the least busy and then the earliest', () => {
    const holders = [holder('b', 1, 1000, 5), holder('a', 1, 1000, 1), holder('c', 2)];
    expect(chooseSource({ controllerSends: 0, inFlight: 0, holders }, 1000, limits)).toEqual({ kind: 'holder', host: 'a' });
    expect(chooseSource({ controllerSends: 2, inFlight: 0, holders: [...holders, holder('d', 0, 1000, 9)] }, 1000, limits)).toEqual({
      kind: 'holder',
      host: 'd',
    });
  });

  it('waits while every holder serves as many receivers as it may', () => {
    expect(chooseSource({ controllerSends: 2, inFlight: 0, holders: [holder('a', 2), holder('b', 2)] }, 1000, limits)).toEqual({ kind: 'wait' });
  });

  it('does not send receivers to a holder idle long enough that its server may have exited', () => {
    const idle = [holder('a', 0, 1000)];
    expect(chooseSource({ controllerSends: 2, inFlight: 0, holders: idle }, 1000 + 30_000, limits)).toEqual({ kind: 'controller', reason: 'no holder' });
    expect(chooseSource({ controllerSends: 2, inFlight: 0, holders: idle }, 1000 + 29_999, limits)).toEqual({ kind: 'holder', host: 'a' });
  });

  it('falls back to the controller when nothing is on its way and no holder is left', () => {
    expect(chooseSource({ controllerSends: 3, inFlight: 0, holders: [] }, 1000, limits)).toEqual({ kind: 'controller', reason: 'no holder' });
  });
});
