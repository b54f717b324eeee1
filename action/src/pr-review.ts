// After a review step's verdict: the verdict as a pull request review on each of the run's PRs
// (core/github/review.ts writes it), and the earlier attempts' reviews of the step replaced: one
// that requests changes is dismissed, a comment (which GitHub cannot dismiss) is edited to say
// which review replaced it. GitHub's refusals the step can work around are worked around: a PR
// Conveyor opened cannot have changes requested by Conveyor (posted as a comment, said so), and
// lines GitHub's diff does not have move the findings into the body. Nothing here fails the step:
// what could not be posted or replaced is said in the check run's summary and the log.
import {
  dismissalMessage,
  outdatedReviewBody,
  planPullReviews,
  renderPullReview,
  reviewOf,
  type PullReviewPlan,
  type ReviewInput,
} from '../../core/github/review.ts';
import { code, safeLinkTarget } from '../../core/text.ts';
import { ReviewRefused, type Forge, type Review } from '../../engine/ports/forge.ts';
import type { StepContext } from './context.ts';

// Exactly as GitHub or the forge said it, in a code span: no markup of its own.
const why = (e: unknown): string => code(e instanceof Error ? e.message : String(e));
const linked = (text: string, url: string): string => {
  const target = safeLinkTarget(url);
  return target ? `[${text}](${target})` : text;
};

interface Posted {
  review: Review;
  notes: string[];
  onLines: number;
  inBody: number;
}

/** Posts the review, working around what GitHub refuses for a reason: at most three tries (each refusal changes one thing). */
async function post(ctx: StepContext, forge: Forge, input: ReviewInput, plan: PullReviewPlan): Promise<Posted> {
  let how: Parameters<typeof renderPullReview>[2] = {};
  const notes: string[] = [];
  for (;;) {
    const request = renderPullReview(input, plan, how);
    try {
      const review = await forge.createReview({
        repo: plan.repo,
        number: plan.number,
        commit: plan.commit,
        event: request.event,
        body: ctx.scrubber.scrub(request.body),
        comments: request.comments.map((c) => ({ ...c, body: ctx.scrubber.scrub(c.body) })),
      });
      const listed = plan.overLimit.length + plan.elsewhere.length + plan.general.length;
      return { review, notes, onLines: request.comments.length, inBody: listed + (how.lines === false ? plan.onLines.length : 0) };
    } catch (e) {
      if (e instanceof ReviewRefused && e.reason === 'own-pull-request' && !how.ownPullRequest) {
        notes.push('posted as a comment: GitHub lets no one request changes on a pull request they opened, and Conveyor opened it');
        how = { ...how, ownPullRequest: true };
      } else if (e instanceof ReviewRefused && e.reason === 'lines' && how.lines !== false) {
        notes.push(`GitHub refused the comments on lines (${why(e)}): every finding is in the body`);
        how = { ...how, lines: false, linesRefused: e.message };
      } else {
        throw e;
      }
    }
  }
}

/** The step's earlier reviews on the PR (by whoever posted this one), replaced by `posted`; what it did, and what failed. */
async function replaceEarlier(forge: Forge, input: ReviewInput, plan: PullReviewPlan, posted: Review): Promise<string[]> {
  const by = { attempt: input.attempt, url: posted.url };
  const earlier = (await forge.listReviews(plan.repo, plan.number)).filter((r) => {
    const of = reviewOf(r.body);
    return (
      r.id !== posted.id &&
      r.author === posted.author &&
      of?.step === input.step &&
      !of.outdated &&
      (r.state === 'CHANGES_REQUESTED' || r.state === 'COMMENTED' || r.state === 'APPROVED')
    );
  });
  const done: string[] = [];
  for (const r of earlier) {
    try {
      if (r.state === 'COMMENTED') {
        await forge.editReview(plan.repo, plan.number, r.id, outdatedReviewBody(input.step, by));
        done.push(`${linked('an earlier review', r.url)} marked outdated`);
      } else {
        await forge.dismissReview(plan.repo, plan.number, r.id, dismissalMessage(input.step, by));
        done.push(`${linked('an earlier review', r.url)} dismissed`);
      }
    } catch (e) {
      done.push(`${linked('an earlier review', r.url)} could not be replaced: ${why(e)}`);
    }
  }
  return done;
}

/** Posts the review on every PR of the run; the Markdown section of the step's summary saying what happened. */
export async function postPullReviews(ctx: StepContext, input: ReviewInput): Promise<string> {
  const plans = planPullReviews(input);
  if (plans.length === 0) return '### On the pull requests\n\nThe run has no pull request to post the review on.';
  const lines: string[] = [];
  let forge: Forge | undefined;
  for (const plan of plans) {
    const name = `${plan.repo}#${plan.number}`;
    try {
      forge ??= await ctx.forge();
      const posted = await post(ctx, forge, input, plan);
      const kind = posted.review.state === 'CHANGES_REQUESTED' ? 'requesting changes' : 'commenting';
      let replaced: string[];
      try {
        replaced = await replaceEarlier(forge, input, plan, posted.review);
      } catch (e) {
        replaced = [`the earlier reviews could not be listed to replace them: ${why(e)}`];
      }
      const what = [`${linked('review', posted.review.url)} ${kind}`, `${posted.onLines} comment(s) on lines`, `${posted.inBody} finding(s) in its body`];
      lines.push(`- ${name}: ${[...what, ...posted.notes, ...replaced].join('; ')}`);
      ctx.log.info(`posted the review on ${name} (${posted.review.url})`);
    } catch (e) {
      lines.push(`- ${name}: the review was not posted: ${why(e)}`);
      ctx.log.warn(`could not post the review on ${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return `### On the pull requests\n\n${lines.join('\n')}`;
}
