import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutageLog } from '../../src/errors/outage-log.js';

/** A logger that keeps what it was told, by level. */
function recorder() {
  const lines: Array<{ level: 'error' | 'info'; fields: Record<string, unknown>; msg: string }> = [];
  const logger = {
    error: (fields: Record<string, unknown>, msg: string) => void lines.push({ level: 'error', fields, msg }),
    info: (fields: Record<string, unknown>, msg: string) => void lines.push({ level: 'info', fields, msg }),
  };
  return { lines, logger: logger as never };
}

describe('OutageLog (security review 3, L2)', () => {
  afterEach(() => vi.useRealTimers());

  it('logs the outage when it starts, then one count per interval, then its end', () => {
    vi.useFakeTimers();
    const { lines, logger } = recorder();
    const outage = new OutageLog(logger, 10);
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    for (let i = 0; i < 4_429; i++) outage.refused(cause);
    expect(lines).toEqual([{ level: 'error', fields: { err: cause, intervalSeconds: 10 }, msg: expect.stringContaining('answering 503') }]);
    vi.advanceTimersByTime(10_000);
    expect(lines[1]).toEqual({
      level: 'error',
      fields: { refused: 4_429, intervalSeconds: 10 },
      msg: expect.stringContaining('4429 requests'),
    });
    // Still away: the next interval's count, and no second "starts" line.
    for (let i = 0; i < 7; i++) outage.refused(cause);
    vi.advanceTimersByTime(10_000);
    expect(lines[2].fields).toEqual({ refused: 7, intervalSeconds: 10 });
    // An interval without a refusal ends it; the next refusal starts another outage.
    vi.advanceTimersByTime(10_000);
    expect(lines[3]).toMatchObject({ level: 'info', msg: expect.stringContaining('outage over') });
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(4);
    outage.refused(cause);
    expect(lines[4]).toMatchObject({ level: 'error', msg: expect.stringContaining('answering 503') });
  });

  it('logs the refusals not yet counted when flushed (the service stops), and nothing when there are none', () => {
    vi.useFakeTimers();
    const { lines, logger } = recorder();
    const outage = new OutageLog(logger, 10);
    outage.flush();
    expect(lines).toEqual([]);
    for (let i = 0; i < 3; i++) outage.refused(new Error('timeout expired'));
    outage.flush();
    expect(lines.map((line) => line.fields.refused)).toEqual([undefined, 3]);
    vi.advanceTimersByTime(30_000);
    expect(lines).toHaveLength(2);
  });
});
