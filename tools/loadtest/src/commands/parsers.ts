/**
 * Commander parsers for option values. Each throws InvalidArgumentError naming the option, so a
 * bad value prints the usage and exits 97 ("could not run") like any bad argument.
 */
import { InvalidArgumentError } from "commander";

const checked = (ok: (n: number) => boolean, what: string) => (name: string) => (v: string): number => {
  const n = Number(v);
  if (!ok(n)) throw new InvalidArgumentError(`${name} must be ${what}`);
  return n;
};

/** A non-negative integer. */
export const int = checked((n) => Number.isInteger(n) && n >= 0, "a non-negative integer");
/** A positive integer. */
export const posInt = checked((n) => Number.isInteger(n) && n >= 1, "a positive integer");
/** A non-negative finite number. */
export const num = checked((n) => Number.isFinite(n) && n >= 0, "a non-negative number");
/** A positive finite number. */
export const posNum = checked((n) => Number.isFinite(n) && n > 0, "a positive number");

/** A parser from a function that throws a plain Error on bad input (the load models' parsers). */
export const parsed = <T>(f: (v: string) => T) => (v: string): T => {
  try {
    return f(v);
  } catch (e) {
    throw new InvalidArgumentError(e instanceof Error ? e.message : String(e));
  }
};

/** A repeatable option: each value parsed by `f` and collected in order. */
export const collect = <T>(f: (v: string) => T) => (v: string, prev: T[] | undefined): T[] => [...(prev ?? []), parsed(f)(v)];
