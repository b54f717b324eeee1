// The embedded mode's reporter: the result as JSON in CONVEYOR_RESULT_PATH, written to a temp file
// in the same folder and renamed, so a reader never sees half a result.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { StepResult } from '../../../core/contract/wire.ts';
import type { Reporter } from './reporter.ts';

export class FileReporter implements Reporter {
  readonly name = 'result file';
  constructor(private readonly path: string) {}

  async report(result: StepResult): Promise<void> {
    const dir = dirname(this.path);
    await mkdir(dir, { recursive: true });
    const temp = join(dir, `.${basename(this.path)}.${process.pid}.${Date.now()}.tmp`);
    await writeFile(temp, `${JSON.stringify(result, null, 2)}\n`);
    await rename(temp, this.path);
  }
}
