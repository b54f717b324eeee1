// Screenshots of the GitHub texts Conveyor writes (docs/screenshots/*.png): the five moments of
// test/helpers/github-texts.ts (a running run, a repair, a wait for approval, a failure, a finished
// run with its cost), each shown as GitHub shows it: the tracking comment as GitHub-flavoured
// Markdown rendered by `marked` and styled by `github-markdown-css` (GitHub's own Markdown style),
// and the pull request's check runs as its Checks list has them; photographed by Debian's headless
// Chromium. Not part of `npm test` (test/core/github/screens.test.ts checks the texts' wording).
//
//   npx tsx scripts/screenshots.ts [--out docs/screenshots] [--chromium /usr/bin/chromium]
//
// Needs the packages `marked` and `github-markdown-css` (resolved like any dependency, NODE_PATH
// included) and `apt-get install chromium fonts-noto-color-emoji`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { githubTextScenes, type CheckRow, type Scene } from '../test/helpers/github-texts.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const out = resolve(option('--out', 'docs/screenshots'));
const chromium = option('--chromium', '/usr/bin/chromium');
const WIDTH = 980;

interface Marked {
  parse(markdown: string, options: { gfm: boolean; breaks: boolean; async: false }): string;
}

/** The renderer and GitHub's stylesheet, or what to install for them. */
async function renderer(): Promise<{ marked: Marked; css: string }> {
  const require = createRequire(import.meta.url);
  try {
    const { marked } = (await import(pathToFileURL(require.resolve('marked')).href)) as { marked: Marked };
    const css = readFileSync(require.resolve('github-markdown-css/github-markdown-light.css'), 'utf8');
    return { marked, css };
  } catch (e) {
    throw new Error(
      `scripts/screenshots.ts renders Markdown with the packages marked and github-markdown-css: add them (npm i -D marked github-markdown-css). (${(e as Error).message.split('\n')[0]})`,
    );
  }
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The Checks list's icon of a check run, as GitHub draws it (by its colour and glyph). */
function icon(c: CheckRow): string {
  if (c.status !== 'completed') return '<span class="icon running" title="in progress">●</span>';
  switch (c.conclusion) {
    case 'success':
      return '<span class="icon success" title="success">✓</span>';
    case 'failure':
      return '<span class="icon failure" title="failure">✕</span>';
    case 'action_required':
      return '<span class="icon action" title="action required">!</span>';
    case 'cancelled':
    case 'skipped':
    case 'neutral':
    default:
      return `<span class="icon neutral" title="${escape(c.conclusion ?? '')}">■</span>`;
  }
}

const PAGE_CSS = `
body { margin: 0; background: #f6f8fa; }
.page { width: ${WIDTH - 48}px; padding: 24px; font-family: -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif, "Noto Color Emoji"; }
.caption { color: #59636e; font-size: 13px; margin: 0 0 12px; }
.box { background: #fff; border: 1px solid #d1d9e0; border-radius: 6px; margin-bottom: 16px; }
.box-header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; border-radius: 6px 6px 0 0; padding: 8px 16px; font-size: 14px; color: #59636e; }
.box-header b { color: #1f2328; }
.bot { border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 6px; font-size: 12px; margin-left: 4px; }
.markdown-body { padding: 16px; font-size: 14px; }
.markdown-body table { font-size: 13px; }
.check { display: flex; align-items: baseline; gap: 8px; padding: 8px 16px; border-top: 1px solid #d1d9e0; font-size: 14px; }
.check:first-of-type { border-top: 0; }
.check .name { font-weight: 600; color: #1f2328; white-space: nowrap; }
.check .title { color: #59636e; flex: 1; }
.check .state { color: #59636e; font-size: 12px; white-space: nowrap; }
.button { border: 1px solid #d1d9e0; border-radius: 6px; padding: 2px 10px; font-size: 12px; background: #f6f8fa; color: #1f2328; margin-left: 4px; }
.icon { display: inline-block; width: 16px; text-align: center; font-weight: 700; }
.icon.success { color: #1a7f37; } .icon.failure { color: #d1242f; } .icon.action { color: #d1242f; }
.icon.running { color: #9a6700; } .icon.neutral { color: #818b98; }
`;

function page(scene: Scene, marked: Marked, css: string): string {
  const comment = marked.parse(scene.comment, { gfm: true, breaks: true, async: false });
  const checks = scene.checks
    .map(
      (c) =>
        `<div class="check">${icon(c)}<span class="name">${escape(c.name)}</span><span class="title">${escape(c.title)}</span>` +
        `${(c.actions ?? []).map((a) => `<span class="button">${escape(a)}</span>`).join('')}` +
        `<span class="state">${escape(c.status === 'completed' ? (c.conclusion ?? '') : c.status)}</span></div>`,
    )
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><style>${css}\n${PAGE_CSS}</style></head><body><div class="page">
<p class="caption">${escape(scene.caption)}</p>
<div class="box"><div class="box-header"><b>conveyor-app</b><span class="bot">bot</span> commented on acme/web#7</div><div class="markdown-body">${comment}</div></div>
<div class="box"><div class="box-header"><b>Checks</b> on acme/web#12</div>${checks}</div>
</div><script>document.body.dataset.height = String(document.documentElement.scrollHeight);</script></body></html>`;
}

const browser = (extra: string[]) =>
  execFileSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--force-device-scale-factor=1', ...extra], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

const { marked, css } = await renderer();
mkdirSync(out, { recursive: true });
const scratch = mkdtempSync(join(tmpdir(), 'conveyor-screens-'));
try {
  for (const scene of githubTextScenes()) {
    const html = join(scratch, `${scene.name}.html`);
    writeFileSync(html, page(scene, marked, css));
    const url = pathToFileURL(html).href;
    // The page's height, measured by the page itself: the screenshot is exactly as tall as it.
    const height = Number(/data-height="(\d+)"/.exec(browser([`--window-size=${WIDTH},800`, '--dump-dom', url]))?.[1] ?? 1200);
    const png = join(out, `${scene.name}.png`);
    browser([`--window-size=${WIDTH},${height}`, `--screenshot=${png}`, url]);
    process.stdout.write(`${png} (${WIDTH}×${height})\n`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
