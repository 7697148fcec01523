import { validate, type ValidationError } from 'class-validator';
import { badUserInput, type FieldError } from '../errors/errors.js';

/**
 * Runs the class-validator rules of an input object (an instance of its input class) and
 * throws one BAD_USER_INPUT error listing every broken rule with its path in request-body
 * terms (`owners[1].ownership`). TypeGraphQL calls it for every argument.
 */
export async function validateInput(input: unknown): Promise<void> {
  const errors = await ruleErrors(input);
  if (errors.length > 0) throw badUserInput(errors);
}

/**
 * Every broken rule of an input instance; also, anywhere in it, text PostgreSQL cannot store
 * as sent: the NUL character, and lone UTF-16 surrogates (not Unicode at all). An input class
 * may add rules across its fields with a `crossFieldErrors()` method (CreatePolicyInput: the
 * quoted fields), listed first, where a missing field's coercion error would have been.
 */
export async function ruleErrors(input: unknown): Promise<FieldError[]> {
  if (typeof input !== 'object' || input === null) return [];
  const crossField = (input as { crossFieldErrors?: () => FieldError[] }).crossFieldErrors;
  const errors = typeof crossField === 'function' ? crossField.call(input) : [];
  errors.push(...unstorableText(input, ''));
  const failures = await validate(input, { forbidUnknownValues: false, validationError: { target: false, value: false } });
  errors.push(...failures.flatMap((failure) => flatten(failure, '')));
  return errors;
}

function flatten(error: ValidationError, parent: string): FieldError[] {
  const path = /^\d+$/.test(error.property) ? `${parent}[${error.property}]` : parent ? `${parent}.${error.property}` : error.property;
  const own = Object.values(error.constraints ?? {})
    // ValidateNested adds "nested property must be either object or array"; types are GraphQL's job.
    .filter((message) => !message.startsWith('nested property'))
    .map((message) => ({ path, message }));
  return [...own, ...(error.children ?? []).flatMap((child) => flatten(child, path))];
}

function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character';
  if (!text.isWellFormed()) return 'must be valid Unicode text';
  return null;
}

function* unstorableText(value: unknown, path: string): Generator<FieldError> {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) yield { path, message: problem };
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* unstorableText(item, `${path}[${index}]`);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const printable = key.replaceAll('\u0000', '\\u0000').toWellFormed();
      const keyPath = path ? `${path}.${printable}` : printable;
      const problem = textProblem(key);
      if (problem) yield { path: keyPath, message: `names ${problem}` };
      yield* unstorableText(item, keyPath);
    }
  }
}
