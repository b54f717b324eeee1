// A discriminating gate (`gate` with `author` and `path`): the author agent writes the gate file
// (an acceptance test) in the primary repository; the gate's `run`, with `{path}` replaced by the
// file as one shell-quoted argument, must FAIL on a clean checkout of the base branch with only that
// file added. A test that already passes there cannot tell whether the issue is done. The file is
// then committed to the work branch and pushed, so the code step that follows sees it.
import { code } from '../../../core/text.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize } from 'node:path';
import { ConveyorError } from '../../../core/errors.ts';
import { oneLine } from '../../../core/prompts/prompt.ts';
import { shellQuote } from '../../../core/shell.ts';
import { buildAuthorPrompt } from '../../../core/prompts/role-prompts.ts';
import type { ErrorCode, StepPayload, StepResult } from '../../../core/contract/wire.ts';
import { agentOutputSection, agentStopped, resolveAgent, runAgentWithPrompt } from '../agent.ts';
import { openExchange, readHandedBack } from '../exchange.ts';
import { prepareStepWorkspace, removeStepWorkspace, runUserCommand, type StepContext } from '../context.ts';
import { commitTrailers, pushBranch } from '../publish.ts';
import { serviceIsolation } from '../sandbox.ts';
import { baseResult } from '../result.ts';
import { environmentsVariables } from '../variables.ts';
import { fenced, tail, workspaceTable } from '../summary.ts';
import { gateEnvironment, setUpServices } from './gate.ts';

/** The gate file's path, checked: relative, inside the repository, not in .git. */
export function gatePath(path: string | undefined, stepId: string): string {
  const bad = (why: string) =>
    new ConveyorError(
      'bad-payload',
      `step.path: gate ${stepId} has path "${path ?? ''}", which ${why}; give a file path relative to the repository, such as test/accept.test.js`,
    );
  if (!path || !path.trim()) throw bad('is empty');
  if (isAbsolute(path)) throw bad('is absolute');
  const n = normalize(path);
  if (n.startsWith('..') || n === '.' || n.split('/').includes('.git')) throw bad('leaves the repository or points into .git');
  return n;
}

function commitMessage(payload: StepPayload, path: string): string {
  const { issue } = payload;
  return [
    `Add acceptance test ${path} for ${oneLine(issue.title, 40)} (${issue.repo}#${issue.number})`,
    '',
    `Written by the author agent of step ${payload.step.id}, attempt ${payload.attempt}; it fails on the base branch.`,
    '',
    ...commitTrailers(payload),
    '',
  ].join('\n');
}

/** The largest gate file an author may write (an acceptance test, not a fixture dump). */
const MAX_GATE_FILE = 1024 * 1024;

export async function runAuthorGate(ctx: StepContext, payload: StepPayload): Promise<StepResult> {
  const step = payload.step;
  if (step.kind !== 'gate' || !step.author) throw new ConveyorError('internal', `runAuthorGate got a ${step.kind} step without an author`);
  const path = gatePath(step.path, step.id);
  if (!step.run)
    throw new ConveyorError('bad-payload', `step.run: gate ${step.id} has an author but no \`run\` to run its file with (for example \`node --test {path}\`)`);
  const agent = resolveAgent(payload, step.author, `gate ${step.id} uses author`);
  const primary = payload.repos.find((r) => r.role === 'primary') ?? payload.repos[0]!;
  const command = step.run.split('{path}').join(shellQuote(path));
  const ws = await prepareStepWorkspace(ctx, [primary], 'work');
  try {
    const repo = ws.repos[0]!;
    const git = repo.git;
    const prompt = buildAuthorPrompt({
      issue: payload.issue,
      step: step.id,
      attempt: payload.attempt,
      repo: repo.repo,
      base: repo.base,
      path,
      command,
      environments: environmentsVariables(payload),
    });
    const outcome = await runAgentWithPrompt(ctx, payload, ws, agent, { prompt, cwd: repo.dir, role: 'author' });
    const sections = [workspaceTable(ws)];
    const agentTail = agentOutputSection(ctx, `Author \`${agent.name}\``, outcome);
    const fail = (code: ErrorCode, message: string, extra: string[] = []): StepResult => ({
      ...baseResult(payload),
      conclusion: 'failure',
      summary: [`**${message}**`, ...extra, ...sections, agentTail].join('\n\n'),
      error: { code, message },
    });
    const stopped = agentStopped(outcome, agent, 'The author');
    if (stopped) return fail(stopped.code, `${stopped.message} Nothing was pushed.`);
    if (outcome.exitCode !== 0) return fail('agent-failed', `The author exited with ${outcome.exitCode ?? outcome.signal}; nothing was pushed.`);

    // Read as data: a link (to a file the author cannot read itself) or anything but a plain file is refused.
    let content: string | undefined;
    try {
      content = await readHandedBack(join(repo.dir, path), repo.dir, `the gate file \`${path}\` the author \`${agent.name}\` wrote`, MAX_GATE_FILE);
    } catch (e) {
      if (e instanceof ConveyorError && e.code === 'output-refused') return fail('output-refused', `${e.message}; nothing was pushed.`);
      throw e;
    }
    if (content === undefined) {
      return fail(
        'gate-file-missing',
        `The author \`${agent.name}\` did not write the gate file \`${path}\` in ${repo.repo}; there is no acceptance test to run.`,
      );
    }
    if (!content.trim()) {
      return fail(
        'gate-file-missing',
        `The gate file \`${path}\` that the author \`${agent.name}\` wrote in ${repo.repo} is empty; there is no acceptance test to run.`,
      );
    }

    // A clean checkout of the base with only the gate file added, in a folder of its own with no
    // git folder (the test cannot change any repository Conveyor's git reads), set up as the gate
    // would be on the work branch: a test that fails for want of `npm ci` proves nothing.
    const check = await openExchange('base-check');
    let onBase;
    try {
      const baseDir = join(check.dir, repo.folder);
      await mkdir(baseDir);
      await git.exportTree(repo.baseCommit, baseDir);
      await mkdir(dirname(join(baseDir, path)), { recursive: true });
      await writeFile(join(baseDir, path), content);
      await setUpServices(ctx, payload, step, ws, [{ repo: repo.repo, dir: baseDir, services: repo.services }], ' (on the base branch)', [check.dir]);
      ctx.log.info(`gate ${step.id} on base ${repo.base} with only ${path} added: ${command}`);
      onBase = await runUserCommand(ctx, {
        command,
        cwd: baseDir,
        env: gateEnvironment(ctx, payload, ws, repo.repo),
        timeoutMinutes: step.timeoutMinutes,
        sandbox: serviceIsolation(payload, ws, repo.services, { env: ctx.env, also: [check.dir] }),
      });
    } finally {
      // Best effort: a failure here must not hide how the gate went.
      await check.remove().catch(() => undefined);
    }
    // Said in words when it printed nothing: an empty block reads as a rendering fault.
    const baseTail = tail(onBase.output);
    const baseOutput = baseTail.trim()
      ? `Output on base ${code(repo.base)} (last lines):\n\n${fenced(baseTail)}`
      : `On base ${code(repo.base)} it printed nothing.`;
    if (onBase.exitCode === 0 && !onBase.timedOut) {
      return fail(
        'gate-not-discriminating',
        `The acceptance test ${code(path)} already passes on the base branch ${code(repo.base)} of ${repo.repo}, before any change: ${code(command)} exited 0 there. A test that passes without the change cannot tell whether the issue is done, so it does not count; nothing was pushed.`,
        [baseOutput],
      );
    }

    let head: string;
    try {
      ({ head } = await git.commitAll(commitMessage(payload, path), { paths: [path] }));
    } catch (e) {
      if (e instanceof ConveyorError && e.code === 'nested-repository') return fail(e.code, `${e.message} Nothing was pushed.`);
      throw e;
    }
    const advanced = head !== (repo.startCommit || repo.baseCommit);
    if (advanced) {
      // The branch's head as the forge has it now (GitHub's own commit, where GitHub made it).
      head = (await pushBranch(ctx, payload, { repo, head })).head;
      ctx.log.info(`pushed ${path} to ${repo.workBranch} of ${repo.repo}`);
    }
    const how = onBase.timedOut ? 'timed out' : `exited ${onBase.exitCode ?? onBase.signal}`;
    const summary = [
      `Acceptance test ${code(path)} by \`${agent.name}\` fails on the base branch ${code(repo.base)} as it must (${code(command)} ${how}); ${advanced ? `committed to ${code(repo.workBranch)}` : `already on ${code(repo.workBranch)}`}.`,
      baseOutput,
      ...sections,
      agentTail,
    ].join('\n\n');
    return { ...baseResult(payload), conclusion: 'success', summary, commits: { [repo.repo]: head } };
  } finally {
    await removeStepWorkspace(ctx, ws);
  }
}
