import { describe, expect, it } from 'vitest';
import { attemptErrorOf, RESPONSE_BODY_KEPT, ResponsePrefix, responseBodyText } from '../../src/webhooks/attempt-log.js';

/** What a webhook attempt's row in the attempt log says (contract section 22), without a network. */
const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('the class of the error that ended an attempt', () => {
  it.each([
    ['ETIMEDOUT', 'timeout'],
    ['ECONNREFUSED', 'connection_refused'],
    ['EHOSTUNREACH', 'connection_refused'],
    ['ENETUNREACH', 'connection_refused'],
    ['ECONNRESET', 'connection_reset'],
    ['EPIPE', 'connection_reset'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['EAI_FAIL', 'dns'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls'],
    ['EADDRNOTPUBLIC', 'refused_address'],
  ])('%s is %s', (code, expected) => {
    expect(attemptErrorOf(withCode(code))).toBe(expected);
  });

  it("takes a connection's AggregateError (every address tried) by its first error's code", () => {
    const refused = new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect failed');
    expect(attemptErrorOf(refused)).toBe('connection_refused');
  });

  it('is null for an error of no class, one without a code, and what is not an error', () => {
    expect(attemptErrorOf(withCode('HPE_INVALID_CONSTANT'))).toBeNull();
    expect(attemptErrorOf(new Error('something else'))).toBeNull();
    expect(attemptErrorOf(undefined)).toBeNull();
    expect(attemptErrorOf('ECONNREFUSED')).toBeNull();
  });
});

describe("an answer's first 4 KB as text", () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');

  it('keeps a short answer whole, and an empty one empty', () => {
    expect(responseBodyText(bytes('{"ok":false}'))).toBe('{"ok":false}');
    expect(responseBodyText(bytes(''))).toBe('');
  });

  it('cuts a longer one at exactly 4,096 bytes', () => {
    const text = responseBodyText(bytes('x'.repeat(10 * 1024)));
    expect(Buffer.byteLength(text)).toBe(RESPONSE_BODY_KEPT);
  });

  it('cuts before a character that would not fit whole, never inside it', () => {
    // 4,095 bytes, then a 3-byte character (bytes 4,095 to 4,097): it is left out.
    const text = responseBodyText(bytes(`${'a'.repeat(4095)}€and more`));
    expect(text).toBe('a'.repeat(4095));
    // A 4-byte character ending exactly at the limit is kept.
    const emoji = responseBodyText(bytes(`${'a'.repeat(4092)}😀b`));
    expect(emoji).toBe(`${'a'.repeat(4092)}😀`);
    expect(Buffer.byteLength(emoji)).toBe(4096);
    // One that starts at byte 4,094 (2 of its 4 bytes past the limit) is left out.
    expect(responseBodyText(bytes(`${'a'.repeat(4094)}😀`))).toBe('a'.repeat(4094));
  });

  it('turns bytes that are not UTF-8, and NUL, into U+FFFD, and still keeps at most 4,096 bytes', () => {
    expect(responseBodyText(Buffer.from([0x41, 0xff, 0x00, 0x42]))).toBe('A\uFFFD\uFFFDB');
    const binary = responseBodyText(Buffer.alloc(10_000, 0xff));
    expect(Buffer.byteLength(binary)).toBeLessThanOrEqual(RESPONSE_BODY_KEPT);
    expect(binary).toMatch(/^\uFFFD+$/);
  });

  it('is the same when the answer arrives in pieces, split anywhere', () => {
    const answer = bytes(`${'é'.repeat(3000)}tail`);
    const prefix = new ResponsePrefix();
    for (let start = 0; start < answer.length; start += 7) prefix.add(answer.subarray(start, start + 7));
    expect(prefix.text()).toBe(responseBodyText(answer));
    expect(prefix.text()).toBe('é'.repeat(2048));
  });
});
