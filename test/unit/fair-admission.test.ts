import { AsyncLocalStorage } from 'node:async_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FairAdmission } from '../../src/limits/fair-admission.js';
import { clientAddress } from '../../src/limits/rate-limits.js';

describe('FairAdmission', () => {
  afterEach(() => vi.useRealTimers());

  /** Admits `count` requests of `key`, returning how many started at once and their handles. */
  function send(admission: FairAdmission, key: string, count: number) {
    const started: number[] = [];
    const handles = Array.from({ length: count }, (_, index) => admission.admit(key, () => started.push(index)));
    return { started, handles };
  }

  it('runs all of a caller’s requests, up to the limit, while it is alone, and refuses more', () => {
    const admission = new FairAdmission(16, 4);
    const { started, handles } = send(admission, 'flooder', 17);
    expect(started).toHaveLength(16);
    expect(handles[16]).toEqual({ refused: true });
  });

  it('holds a caller to its share while another caller is served, and lets the rest wait, not fail', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const admission = new FairAdmission(16, 4);
    const reader = send(admission, 'reader', 1);
    expect(reader.started).toEqual([0]);
    const flooder = send(admission, 'flooder', 16);
    expect(flooder.started).toEqual([0, 1, 2, 3]);
    expect(flooder.handles.every((handle) => !handle.refused)).toBe(true);
    // One of the flooder's requests finishes: the next waiting one starts in its place.
    (flooder.handles[0] as { finished: () => void }).finished();
    expect(flooder.started).toEqual([0, 1, 2, 3, 4]);
    // The reader goes quiet for more than a second: the flooder may run all of its requests.
    (reader.handles[0] as { finished: () => void }).finished();
    vi.setSystemTime(Date.now() + 1500);
    (flooder.handles[1] as { finished: () => void }).finished();
    expect(flooder.started).toHaveLength(16);
  });

  it('runs a caller of large answers one at a time while another caller is served, and a caller of small ones at its share', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const admission = new FairAdmission(16, 4);
    send(admission, 'reader', 1);
    // Two pages of 200 KB each: the pager's mean answer is over the 256 KB it may have in the making at once.
    for (const bytes of [200_000, 200_000])
      (send(admission, 'pager', 1).handles[0] as { finished: (bytes: number) => void }).finished(bytes);
    expect(send(admission, 'pager', 4).started).toEqual([0]);
    // Ordinary documents: the whole share.
    for (const bytes of [4_000, 4_000]) (send(admission, 'browser', 1).handles[0] as { finished: (bytes: number) => void }).finished(bytes);
    expect(send(admission, 'browser', 6).started).toEqual([0, 1, 2, 3]);
    // Alone again (the others quiet for over a second), the pager runs everything it sends.
    vi.setSystemTime(Date.now() + 1500);
    expect(send(admission, 'pager', 8).started).toHaveLength(8);
  });

  it('counts an answer whose size is not a number as empty (the caller keeps its share)', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const admission = new FairAdmission(16, 4);
    send(admission, 'reader', 1);
    (send(admission, 'socketless', 1).handles[0] as { finished: (bytes: number) => void }).finished(Number.NaN);
    expect(send(admission, 'socketless', 4).started).toEqual([0, 1, 2, 3]);
  });

  it('forgets a waiting request whose client left', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const admission = new FairAdmission(3, 1);
    send(admission, 'reader', 1);
    const flooder = send(admission, 'flooder', 3);
    expect(flooder.started).toEqual([0]);
    (flooder.handles[2] as { finished: () => void }).finished(); // left while waiting
    (flooder.handles[0] as { finished: () => void }).finished();
    expect(flooder.started).toEqual([0, 1]);
    // Its place is free again: two in flight now, a third is accepted.
    expect(admission.admit('flooder', () => undefined).refused).toBe(false);
  });

  it('starts a waiting request in its own async context, not in that of the request whose end let it in', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const admission = new FairAdmission(4, 1);
    const request = new AsyncLocalStorage<string>();
    send(admission, 'reader', 1);
    const first = request.run('first', () => admission.admit('flooder', () => undefined)) as { finished: () => void };
    let startedIn: string | undefined;
    request.run('waiting', () => admission.admit('flooder', () => (startedIn = request.getStore())));
    expect(startedIn).toBeUndefined();
    request.run('first', () => first.finished());
    expect(startedIn).toBe('waiting');
  });
});

describe('clientAddress', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('counts %s as %s', (ip, key) => {
    expect(clientAddress(ip)).toBe(key);
  });
});
