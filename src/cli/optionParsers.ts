import { InvalidArgumentError } from "commander";

/** A repeatable option's values, in the order given. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** A whole number of at least `min`; anything else is a usage error naming what was expected. */
export function integer(min: number, what: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`expected ${what}`);
    }
    return n;
  };
}
