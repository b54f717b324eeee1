// GitHub's documented limits on what Conveyor writes, and fitting text to them: every text the
// GitHub adapter sends passes through here, so nothing is refused for its length (a 422 that would
// lose a result or a reply) and a cut says where the rest is.
import { fitText } from '../text.ts';

/** Issue and pull request comments, and pull request bodies. */
export const COMMENT_MAX = 65_536;
/** A check run's output.summary and output.text each. */
export const CHECK_OUTPUT_MAX = 65_535;
/** A check run's output.title (GitHub documents none; long titles are cut in the UI anyway). */
export const CHECK_TITLE_MAX = 1_000;
/** A deployment's and a deployment status's description. */
export const DEPLOYMENT_DESCRIPTION_MAX = 140;
/** A pull request's title. */
export const PR_TITLE_MAX = 256;
/** A pull request review's body, and each of its review comments' (GitHub keeps them as it keeps comments). */
export const REVIEW_BODY_MAX = COMMENT_MAX;
/**
 * Review comments Conveyor sends in one pull request review. GitHub documents no number, but a
 * review is one request whose comments GitHub checks and notifies about at once: tools that sent
 * about a hundred saw the request refused or time out (a 502 on GitHub Enterprise Server), and
 * creating content fast trips GitHub's secondary rate limits. Past this, findings go in the body.
 */
export const REVIEW_COMMENTS_MAX = 50;

/** A comment (or PR body) that fits; the cut says where the rest is. */
export function fitComment(body: string): string {
  return fitText(body, COMMENT_MAX, 'the whole text is in the run (`/conveyor status`, `conveyor status`) and the step logs');
}

/** A check run's output that fits: its title, summary and text each cut where they would be refused. */
export function fitCheckOutput<T extends { title: string; summary: string; text?: string }>(output: T): T {
  const title = output.title.length > CHECK_TITLE_MAX ? `${output.title.slice(0, CHECK_TITLE_MAX - 1)}…` : output.title;
  return {
    ...output,
    title,
    summary: fitText(output.summary, CHECK_OUTPUT_MAX, "the whole output is in the step's log (its workflow run)"),
    ...(output.text !== undefined ? { text: fitText(output.text, CHECK_OUTPUT_MAX, "the whole output is in the step's log (its workflow run)") } : {}),
  };
}
