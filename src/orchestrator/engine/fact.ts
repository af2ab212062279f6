// A fact is a named, typed read of remote state: a shell snippet and a pure parser.
// The engine concatenates every fact a role needs on a host into ONE remote script, cuts the
// output back into sections by marker, and hands each section to its parser.
import type { ShellCommand } from '../ssh/quote.js';

export interface Fact<T> {
  /**
   * Cache key, unique per meaning, e.g. "file:/etc/motd" or "os-release". Two tasks that
   * declare the same key share one read. Changes invalidate facts by key or key prefix.
   */
  readonly key: string;
  /** Runs under `sh` (as root when `become`); its stdout is this fact's section. */
  readonly script: ShellCommand;
  /** Needs root to read (e.g. files under /etc/kubernetes/pki). */
  readonly become?: boolean;
  /** Pure: section stdout and the snippet's exit code in, typed value out. Throws on garbage. */
  parse(stdout: string, exitCode: number): T;
  /**
   * Fields of the (object) value that change by themselves between two reads of a host nobody
   * touched (its clock): left out of what a plan file fingerprints (RunOptions.onPlanned).
   */
  readonly volatile?: readonly string[];
  /**
   * Facts of one kind read together: when a batch holds several facts with the same group
   * id, the engine runs the group's one script for all their items instead of each fact's
   * own script (one `systemctl show` for every unit, one `stat` for every file...), then
   * hands each fact the section its own script would have printed.
   */
  readonly group?: FactGroup;
}

export interface FactGroup {
  /** Facts whose group ids are equal are read by one script. */
  readonly id: string;
  /** This fact's item in the group: a path, a unit name. */
  readonly item: string;
  /** One script reading every item (in this order). */
  script(items: readonly string[]): ShellCommand;
  /** Pure: the group script's output in, per item (same order) what the fact's own script would print. */
  split(stdout: string, exitCode: number, items: readonly string[]): { stdout: string; exitCode: number }[];
  /**
   * The group script runs in the batch's own shell instead of a subshell (a subshell is a fork:
   * about 1 ms of host CPU each, on every host, at every check). Only for scripts that never
   * `exit`, leave the shell options, IFS and the working directory as they found them, and name
   * their variables kc_* (positional parameters are theirs to use). A fact's own script always
   * gets a subshell: `exit` there ends only its section.
   */
  readonly inline?: boolean;
}

export type FactMap = Readonly<Record<string, Fact<unknown>>>;

export type FactValues<M extends FactMap> = { readonly [K in keyof M]: M[K] extends Fact<infer T> ? T : never };
