// The part of `debug` (simple-git's logger, which ships no types) that lib/git.ts uses.
declare module 'debug' {
  interface Debug {
    /** Turns on the namespaces listed (comma-separated; `-name` turns one off). */
    enable(namespaces: string): void;
    /** Turns every namespace off and returns those that were on. */
    disable(): string;
  }
  const debug: Debug;
  export default debug;
}
