import { describe, expect, it } from 'vitest';
import { cachedReadiness, type Readiness } from '../../src/http/readiness.js';

describe('cachedReadiness', () => {
  it('checks at most once per second, whatever the number of callers, and shares a check in flight', async () => {
    let clock = 0;
    let checks = 0;
    let answer: Readiness = 'ready';
    const readiness = cachedReadiness(
      async () => (checks++, answer),
      1000,
      () => clock,
    );
    expect(await Promise.all(Array.from({ length: 1000 }, readiness))).toEqual(Array(1000).fill('ready'));
    expect(checks).toBe(1);
    answer = 'migrations pending';
    clock = 999;
    expect(await readiness()).toBe('ready');
    expect(checks).toBe(1);
    clock = 1000;
    expect(await readiness()).toBe('migrations pending');
    expect(checks).toBe(2);
  });

  it('starts no second check while one is still running, however old it is', async () => {
    let clock = 0;
    let checks = 0;
    let finish: (value: Readiness) => void = () => undefined;
    const readiness = cachedReadiness(
      () => (checks++, new Promise<Readiness>((resolve) => (finish = resolve))),
      1000,
      () => clock,
    );
    const first = readiness();
    clock = 5000;
    const second = readiness();
    expect(checks).toBe(1);
    finish('database unreachable');
    expect(await Promise.all([first, second])).toEqual(['database unreachable', 'database unreachable']);
    expect(readiness()).not.toBe(first);
    expect(checks).toBe(2);
  });
});
