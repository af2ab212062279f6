/** Bad input found before anything ran (unknown --limit term...): the CLI exits 2. */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}
