// The action's entry (action.yml runs its bundle): no logic here.
import { main } from './main.ts';

process.exitCode = await main();
