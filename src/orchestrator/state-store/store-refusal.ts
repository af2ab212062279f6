// The errors by which a state store refuses a command, each with a message that names what and
// what to do: another controller holds the lease, the store does not answer or says no, an
// object is sealed with another key or damaged, the state changed under the run. Commands report
// them (exit 2, or 7 for a run that could not publish) rather than fail as a bug.
import { EnvelopeError } from './envelope.js';
import { StateChanged } from './generations.js';
import { LeaseHeld } from './lease.js';
import { S3Error } from './s3/s3-client.js';

export const isStoreRefusal = (error: unknown): error is Error =>
  error instanceof LeaseHeld || error instanceof S3Error || error instanceof EnvelopeError || error instanceof StateChanged;
