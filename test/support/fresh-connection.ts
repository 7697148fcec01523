import { request as httpRequest } from 'node:http';

export type Outcome = { status: number; body: any } | { error: string };

/**
 * One request on a connection of its own (no keep-alive), so a node:cluster primary hands each
 * to the next worker. A refused or reset connection is an outcome too, not a throw.
 */
export function sendOnNewConnection(
  url: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; requestId?: string } = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
      ...(payload ? { 'content-type': 'application/json' } : {}),
    };
    const req = httpRequest(new URL(path, url), { method, agent: false, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : text }));
      res.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    });
    req.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    req.end(payload);
  });
}
