#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `prepare` on `npm ci`).
import { main } from '../dist/src/cli/main.js';

// A reader that stops early (`kcluster apply --help | head -1`) closes the pipe: stop quietly,
// as a command killed by SIGPIPE does, instead of an unhandled-error stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`kcluster: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
