import { STATUS_CODES } from 'node:http';
import type { FieldError } from './errors.js';

export interface Problem {
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[];
  /** Only on 500s: the id to quote to support (also in the X-Request-Id header). */
  requestId?: string;
}

export const PROBLEM_JSON = 'application/problem+json';

/**
 * RFC 9457 problem details. `type` is `about:blank`, so `title` is the HTTP status text;
 * `code` is the same machine code GraphQL puts in `extensions.code`.
 */
export function problemBody(problem: Problem): string {
  const { status, code, detail, errors, requestId } = problem;
  return JSON.stringify({
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors ? { errors } : {}),
    ...(requestId ? { requestId } : {}),
  });
}
