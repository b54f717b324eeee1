import { describe, expect, it } from 'vitest';
import { replyVerdictOf, structuredOutputOf } from '../../../core/steps/verdicts.ts';

describe('verdicts in what a CLI printed', () => {
  it('takes structured_output from a result event only', () => {
    expect(structuredOutputOf('{"type":"result","structured_output":{"verdict":"pass"}}')).toEqual({ verdict: 'pass' });
    expect(structuredOutputOf('{"type":"assistant","structured_output":{"verdict":"pass"}}')).toBeUndefined();
    expect(structuredOutputOf('{"type":"result","result":"text"}')).toBeUndefined();
    expect(structuredOutputOf('not json {')).toBeUndefined();
  });

  it('takes the last json block of a reply that holds a verdict, else the last such line', () => {
    const reply = 'Looks fine.\n```json\n{"verdict": "fail"}\n```\nOn second thought:\n```json\n{"verdict": "pass", "findings": []}\n```\n';
    expect(replyVerdictOf(reply)).toEqual({ verdict: 'pass', findings: [] });
    expect(replyVerdictOf('```json\n{"other": 1}\n```\n{"verdict": "fail"}\n')).toEqual({ verdict: 'fail' });
    expect(replyVerdictOf('no verdict here')).toBeUndefined();
  });
});
