// The action's entry (action.yml runs its bundle, action/dist/index.js): no logic here. Source
// maps first, so that a stack trace in the log names the sources' lines: Node maps only what it
// loads after they are on, hence the step runner is imported, not loaded with this file. It exits
// once the result is reported, whatever a command left behind (a socket, a timer): nothing of the
// step is left to do.
process.setSourceMapsEnabled(true);
const { main } = await import('./main.ts');

process.exit(await main());
