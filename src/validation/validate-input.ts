import { validate, type ValidationError } from 'class-validator';
import { badUserInput, type FieldError } from '../graphql/errors.js';

/**
 * Runs the class-validator rules of an input object (an instance of its input class) and
 * throws one BAD_USER_INPUT error listing every broken rule with its path in request-body
 * terms (`owners[1].ownership`). TypeGraphQL calls it for every argument.
 */
export async function validateInput(input: unknown): Promise<void> {
  const errors = await ruleErrors(input);
  if (errors.length > 0) throw badUserInput(errors);
}

/** Every broken rule of an input instance; also the NUL character anywhere (PostgreSQL cannot store it). */
export async function ruleErrors(input: unknown): Promise<FieldError[]> {
  if (typeof input !== 'object' || input === null) return [];
  const errors = [...nulCharacters(input, '')];
  const failures = await validate(input, { forbidUnknownValues: false, validationError: { target: false, value: false } });
  errors.push(...failures.flatMap((failure) => flatten(failure, '')));
  return errors;
}

function flatten(error: ValidationError, parent: string): FieldError[] {
  const path = /^\d+$/.test(error.property)
    ? `${parent}[${error.property}]`
    : parent
      ? `${parent}.${error.property}`
      : error.property;
  const own = Object.values(error.constraints ?? {})
    // ValidateNested adds "nested property must be either object or array"; types are GraphQL's job.
    .filter((message) => !message.startsWith('nested property'))
    .map((message) => ({ path, message }));
  return [...own, ...(error.children ?? []).flatMap((child) => flatten(child, path))];
}

function* nulCharacters(value: unknown, path: string): Generator<FieldError> {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) yield { path, message: 'must not contain the NUL character' };
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* nulCharacters(item, `${path}[${index}]`);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const keyPath = path ? `${path}.${key.replace(/\u0000/g, '\\u0000')}` : key.replace(/\u0000/g, '\\u0000');
      if (key.includes('\u0000')) yield { path: keyPath, message: 'names must not contain the NUL character' };
      yield* nulCharacters(item, keyPath);
    }
  }
}
