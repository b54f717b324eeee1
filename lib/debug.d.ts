// The part of `debug` (simple-git's logger, which ships no types) that lib/git-safety.ts uses, and the
// call that makes a logger (a test uses it to see that DEBUG is still honoured).
declare module 'debug' {
  interface Debug {
    (namespace: string): (message: string, ...args: unknown[]) => void;
    /** Turns on the namespaces listed (comma-separated; `-name` turns one off). */
    enable(namespaces: string): void;
    /** Turns every namespace off and returns those that were on. */
    disable(): string;
  }
  const debug: Debug;
  export default debug;
}
