// The action's entry (action.yml runs its bundle): no logic here. It exits once the result is
// reported, whatever a command left behind (a socket, a timer): nothing of the step is left to do.
import { main } from './main.ts';

process.exit(await main());
