import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { TestResponse } from './http.js';

/**
 * Checks REST responses against the OpenAPI document the server serves: the operation is found
 * by method and path template, then the body must match the schema for its status and media
 * type. A status the document does not list for the operation is a failure too.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const validators = new Map<string, Promise<ResponseChecker>>();

export type ResponseChecker = (method: string, path: string, response: TestResponse) => void;

export function openApiChecker(baseUrl: string): Promise<ResponseChecker> {
  let checker = validators.get(baseUrl);
  if (!checker) {
    checker = fetch(new URL('/api/v1/openapi.json', baseUrl))
      .then((response) => response.json())
      .then(openApiCheckerOf);
    validators.set(baseUrl, checker);
  }
  return checker;
}

/** A checker of responses against this OpenAPI document (the in-process tests make it from the service's own). */
export function openApiCheckerOf(document: any): ResponseChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi');
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const compiled = new Map<string, ValidateFunction>();
  const pointer = (...segments: string[]) =>
    'openapi#/' + segments.map((segment) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

  return (method, path, response) => {
    const pathname = new URL(path, 'http://x').pathname;
    const match = templates.find(({ pattern }) => pattern.test(pathname));
    const operation = match && document.paths[match.template][method.toLowerCase()];
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0];
    let where: string;
    if (!operation) {
      // 404 for unknown paths and 405 for other methods: no operation, but still a problem.
      if (mediaType !== 'application/problem+json') throw new Error(`${method} ${path}: ${response.status} is not problem+json`);
      where = pointer('components', 'schemas', 'Problem');
    } else {
      const declared = operation.responses[String(response.status)];
      if (!declared) throw new Error(`${method} ${path}: status ${response.status} is not in the OpenAPI document`);
      // A response declared without content (204) must come without a body.
      if (!declared.content) {
        if (response.text !== '') throw new Error(`${method} ${path}: ${response.status} has a body the OpenAPI document does not declare`);
        return;
      }
      if (!declared.content[mediaType])
        throw new Error(`${method} ${path}: ${response.status} as ${mediaType} is not in the OpenAPI document`);
      where = pointer('paths', match.template, method.toLowerCase(), 'responses', String(response.status), 'content', mediaType, 'schema');
    }
    let validate = compiled.get(where);
    if (!validate) {
      validate = ajv.getSchema(where);
      if (!validate) throw new Error(`no schema at ${where}`);
      compiled.set(where, validate);
    }
    if (!validate(response.body)) {
      throw new Error(
        `${method} ${path} -> ${response.status} does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}\n${response.text.slice(0, 500)}`,
      );
    }
  };
}
