// Plain sentences for ajv errors: what is wrong and what is allowed, never ajv's jargon
// ("must match pattern ^[A-Za-z_]..."). The schema's own `allowed` keyword says what a field
// accepts in words; the fallbacks below cover the fields that need no more than their type.
import type { ErrorObject } from 'ajv';
import { closest } from '../../orchestrator/inventory/suggest.js';

const TYPE_WORDS: Record<string, string> = {
  string: 'a text value',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a map (key: value)',
  null: 'empty',
};

export function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function allowedText(error: ErrorObject): string | undefined {
  const parent = error.parentSchema as { allowed?: unknown } | undefined;
  return typeof parent?.allowed === 'string' ? parent.allowed : undefined;
}

function fallbackText(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': {
      const types = String(params['type']).split(',');
      return `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    }
    case 'minLength':
      return 'must not be empty';
    case 'maxLength':
      return `must be at most ${String(params['limit'])} characters long`;
    case 'minimum':
      return `must be at least ${String(params['limit'])}`;
    case 'maximum':
      return `must be at most ${String(params['limit'])}`;
    case 'pattern':
      return 'is not written in an allowed form';
    default:
      return error.message ?? 'is invalid';
  }
}

/** The message for one ajv error; `unionAllowed` words a value that fits no branch of a union. */
export function messageFor(error: ErrorObject, unionAllowed?: string): string {
  const allowed = allowedText(error) ?? unionAllowed;
  const got = ` (got ${shown(error.data)})`;
  switch (error.keyword) {
    case 'enum': {
      const values = (error.params as { allowedValues: unknown[] }).allowedValues.map((v) => String(v));
      const guess = typeof error.data === 'string' ? closest(error.data, values) : undefined;
      return `must be one of ${values.join(', ')}${got}${guess ? `; did you mean "${guess}"?` : ''}`;
    }
    case 'required':
      return `missing required key "${(error.params as { missingProperty: string }).missingProperty}"`;
    case 'minItems':
      return allowed ? `must be ${allowed}${got}` : `must have at least ${(error.params as { limit: number }).limit} item(s)${got}`;
    case 'uniqueItems':
      return `must not repeat an item${got}`;
    default:
      return allowed ? `must be ${allowed}${got}` : `${fallbackText(error)}${got}`;
  }
}
