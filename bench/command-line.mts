/**
 * The command line of a bench command that compares this checkout with another (bench:versus,
 * bench:instructions): the other checkout, and flags that each take a value.
 */
export interface CommandLine {
  /** Prints `message` and the usage, and exits with status 2. */
  fail(message: string): never;
  /** `value` as a whole number from `min` to `max`, or a failure naming `flag`. */
  wholeNumber(flag: string, value: string | undefined, min: number, max: number): number;
  /** `value` as comma-separated names, each one of `known`, or a failure naming `flag`. */
  names(flag: string, value: string | undefined, known: readonly string[]): string[];
  /** `value` as one of `known`, or a failure naming `flag`. */
  oneOf<Name extends string>(flag: string, value: string | undefined, known: readonly Name[]): Name;
}

export function commandLine(command: string, usage: string): CommandLine {
  const fail = (message: string): never => {
    console.error(`${command}: ${message}\n\n${usage}`);
    process.exit(2);
  };
  return {
    fail,
    wholeNumber(flag, value, min, max) {
      const n = Number(value);
      if (!Number.isInteger(n) || n < min || n > max) fail(`${flag} takes a whole number from ${min} to ${max}`);
      return n;
    },
    names(flag, value, known) {
      const names = (value ?? '').split(',').filter((name) => name !== '');
      if (names.length === 0 || names.some((name) => !known.includes(name))) fail(`${flag} takes names from ${known.join(', ')}`);
      return names;
    },
    oneOf(flag, value, known) {
      const name = known.find((candidate) => candidate === value);
      return name ?? fail(`${flag} takes one of ${known.join(', ')}`);
    },
  };
}

/**
 * Reads `args`: `--help` prints `usage` and exits; each flag of `flags` is handed its value; the one
 * argument that is not a flag is the other checkout, which must be there.
 */
export function readArguments(
  line: CommandLine,
  usage: string,
  args: readonly string[],
  flags: Record<string, (value: string | undefined) => void>,
): string {
  let other: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--help' || arg === '-h') {
      console.log(usage);
      process.exit(0);
    } else if (Object.hasOwn(flags, arg)) {
      flags[arg](args[++i]);
    } else if (arg.startsWith('-') || other !== undefined) {
      line.fail(`unexpected argument ${arg}`);
    } else {
      other = arg;
    }
  }
  return other ?? line.fail('name the other checkout');
}
