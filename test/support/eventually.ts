/**
 * What `probe` answers once it answers something (not undefined, not false), asked every 100 ms
 * for at most `ms`; else an error naming `what`. For what the service does after its answer
 * (a webhook's delivery, a sealed audit entry).
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
