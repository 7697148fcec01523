/**
 * Runs a write whose limits the database enforces (quotas, tree depth: triggers raising their
 * own SQLSTATE, so no instance can race past them). An error with `sqlstate` whose message
 * `refusal` recognizes becomes the caller's error; the write's transaction has rolled back.
 * Any other error is rethrown as it is.
 */
export async function withDatabaseRefusal<T>(
  sqlstate: string,
  refusal: (message: string) => Error | null,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    const refused = code === sqlstate ? refusal(message ?? '') : null;
    throw refused ?? error;
  }
}
