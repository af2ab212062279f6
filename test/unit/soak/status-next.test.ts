// The command `kcluster status` names as next, read back into arguments: every word quoteWord
// writes round-trips; anything else is refused rather than guessed.
import { describe, expect, it } from 'vitest';
import { quoteWord } from '../../../src/orchestrator/ssh/quote.js';
import { parseNextCommand, shellWords } from '../../soak/status-next.js';

describe('parseNextCommand', () => {
  it('reads "kcluster ARGS"', () => {
    expect(parseNextCommand('kcluster apply -i /root/.kcluster/labs/kcsoak/soak-inventory.yaml --output json')).toEqual({
      args: ['apply', '-i', '/root/.kcluster/labs/kcsoak/soak-inventory.yaml', '--output', 'json'],
    });
  });

  it('reads "cd DIR && kcluster ARGS"', () => {
    expect(parseNextCommand("cd '/a dir' && kcluster remove-node -i inv.yaml kcsoak2 --yes")).toEqual({
      cwd: '/a dir',
      args: ['remove-node', '-i', 'inv.yaml', 'kcsoak2', '--yes'],
    });
  });

  it('round-trips words as quoteWord writes them', () => {
    const args = ['certs', 'rotate-ca', '-i', "it's here.yaml", '--keep-old-key', '10s', 'a b', ''];
    expect(parseNextCommand(['kcluster', ...args.map(quoteWord)].join(' '))).toEqual({ args });
  });

  it('refuses what is not a kcluster command or has shell syntax it does not read', () => {
    expect(parseNextCommand('kubectl get nodes')).toBeNull();
    expect(parseNextCommand('kcluster')).toBeNull();
    expect(parseNextCommand('kcluster apply -i "x.yaml"')).toBeNull();
    expect(parseNextCommand('kcluster apply -i $INV')).toBeNull();
    expect(parseNextCommand("kcluster apply -i 'unterminated")).toBeNull();
  });
});

describe('shellWords', () => {
  it('splits on spaces and joins quoted parts of one word', () => {
    expect(shellWords(`a  'b c'd 'it'\\''s'`)).toEqual(['a', 'b cd', "it's"]);
  });
});
