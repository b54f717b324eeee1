// Shell quoting for the few places where Conveyor puts a value of its own (never issue or comment
// text) into a command line that `bash -c` runs, such as a gate's `{path}`.

/** One argument for a POSIX shell: single-quoted, with each `'` written as `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
