// Ask for a secret on the terminal without echoing it (key passphrases).
import { createInterface } from 'node:readline';

export function promptHidden(question: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    const output = rl as unknown as { _writeToOutput?: (text: string) => void };
    process.stderr.write(question);
    // Swallow the echo of typed characters; keep the final newline.
    output._writeToOutput = (text: string) => {
      if (text.includes('\n')) process.stderr.write('\n');
    };
    rl.question('', (answer) => {
      rl.close();
      resolvePromise(answer);
    });
    rl.on('SIGINT', () => {
      rl.close();
      reject(new Error('passphrase prompt interrupted'));
    });
  });
}
