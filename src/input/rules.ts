import {
  ArrayMaxSize,
  IsOptional,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  isEmail,
  isURL,
  type ValidationArguments,
} from 'class-validator';
import { Extensions } from 'type-graphql';
import { addMonthsClamped, compareDates, isCalendarDate, todayUtc } from '../values/calendar-date.js';
import { isRfc3339DateTime, RFC3339_MESSAGE } from '../values/date-time.js';
import { jsonProblem, type JsonBounds } from './input-shape.js';

/**
 * The input rules of spec sections 4 and 5 as class-validator decorators, declared once on
 * the GraphQL input classes and so shared by GraphQL and REST. Types are already enforced by
 * GraphQL coercion, so each rule may assume its field has the declared type. Messages never
 * repeat the value: it may be a secret.
 */
type FieldDecorator = (target: object, propertyKey: string) => void;

const compose =
  (...decorators: FieldDecorator[]): FieldDecorator =>
  (target, key) => {
    for (const decorator of decorators) decorator(target, key);
  };

/** A rule that throws on odd input (validator.js does, on lone surrogates) counts as broken. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- class-validator hands every value as any; each rule runs on a value GraphQL already coerced, and a throw counts as broken.
const rule = (name: string, message: string, test: (value: any, args: ValidationArguments) => boolean): FieldDecorator =>
  ValidateBy({
    name,
    validator: {
      validate: (value, args) => {
        try {
          return args !== undefined && test(value, args);
        } catch {
          return false;
        }
      },
      defaultMessage: () => message,
    },
  });

/** Optional fields accept null or absence; every other rule then only sees real values. */
const optional = (...decorators: FieldDecorator[]) => compose(IsOptional(), ...decorators);

const characters = (value: string) => [...value].length;

const maxLength = (max: number) =>
  rule('maxLength', `must be at most ${max} characters`, (value) => typeof value === 'string' && characters(value) <= max);

export const RequiredText = (max = 255) =>
  compose(
    rule('required', 'is required and must not be blank', (value) => typeof value === 'string' && value.trim().length > 0),
    maxLength(max),
  );

export const OptionalText = (max = 255) => optional(maxLength(max));

/**
 * A required text field in a change (a merge patch, contract section 15): absent keeps what is
 * stored, null would remove it (refused), a value follows the create's rule.
 */
export const RequiredTextIfGiven = (max = 255) =>
  compose(
    ValidateIf((_object, value) => value !== undefined),
    rule(
      'required',
      'is required: it cannot be removed (null) and must not be blank',
      (value) => typeof value === 'string' && value.trim().length > 0,
    ),
    // Judged only on text: null is the rule above's.
    rule('maxLength', `must be at most ${max} characters`, (value) => typeof value !== 'string' || characters(value) <= max),
  );

export const Email = () =>
  optional(
    maxLength(255),
    rule('email', 'must be a valid email address', (value) => isEmail(value)),
  );

export const HttpUrl = () =>
  optional(
    maxLength(255),
    rule('httpUrl', 'must be an absolute http or https URL', (value) =>
      isURL(value, { protocols: ['http', 'https'], require_protocol: true, require_tld: false }),
    ),
  );

const HTTP_URL_WITHOUT_CREDENTIALS = 'must be an absolute http or https URL without user or password';

function isHttpUrlWithoutCredentials(value: string): boolean {
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.hostname !== '';
}

/** A required absolute http(s) URL without credentials in it (a webhook's address). */
export const RequiredHttpUrl = (max = 2048) =>
  compose(maxLength(max), rule('httpUrl', HTTP_URL_WITHOUT_CREDENTIALS, isHttpUrlWithoutCredentials));

/**
 * A webhook's address in a change (a merge patch, contract section 22): absent keeps it, null
 * would remove it (refused), a value follows the create's rule.
 */
export const RequiredHttpUrlIfGiven = (max = 2048) =>
  compose(
    ValidateIf((_object, value) => value !== undefined),
    rule('required', 'is required: it cannot be removed (null)', (value) => value !== null),
    // Judged only on text: null is the rule above's.
    rule('maxLength', `must be at most ${max} characters`, (value) => value === null || characters(value) <= max),
    rule('httpUrl', HTTP_URL_WITHOUT_CREDENTIALS, (value) => value === null || isHttpUrlWithoutCredentials(value)),
  );

/** A field of a change that may be absent (kept) but not null: there is nothing to remove (`enabled`). */
export const NotNullIfGiven = (message = 'cannot be null: leave it out to keep it') =>
  compose(
    ValidateIf((_object, value) => value !== undefined),
    rule('notNull', message, (value) => value !== null),
  );

/** A list whose every item is one of `values`, without repeats, and not empty when given. */
export const EachAmong = (values: readonly string[]) =>
  compose(
    Extensions({ maxItems: values.length }),
    optional(
      rule(
        'eachAmong',
        `must be a non-empty list of distinct values among ${values.join(', ')}`,
        (list: string[]) => list.length > 0 && new Set(list).size === list.length && list.every((value) => values.includes(value)),
      ),
    ),
  );

export const Phone = () =>
  optional(rule('phone', 'must be 7 to 20 digits, spaces or +-().', (value) => /^[0-9 +\-().]{7,20}$/.test(value)));

export const BankIdentifier = () =>
  rule('bankIdentifier', 'must be 4 to 34 letters or digits', (value) => /^[A-Za-z0-9]{4,34}$/.test(value ?? ''));

export const Cvc = () => optional(rule('cvc', 'must be 3 or 4 digits', (value) => /^\d{3,4}$/.test(value)));

/**
 * A tax id of a person: 4 to 40 letters or digits, with spaces, dots, slashes or hyphens
 * between them (SSN, EIN, NI number, Steuer-ID...). A shorter value could not be masked.
 */
export const TaxId = () =>
  optional(
    rule(
      'taxId',
      'must be 4 to 40 letters or digits, optionally separated by spaces, dots, slashes or hyphens',
      (value) => /^[A-Za-z0-9](?:[A-Za-z0-9 ./-]{0,38}[A-Za-z0-9])?$/.test(value) && (value.match(/[A-Za-z0-9]/g)?.length ?? 0) >= 4,
    ),
  );

export const Percentage = () =>
  optional(
    rule(
      'percentage',
      'must be a percentage greater than 0 and at most 100',
      (value) => Number.isFinite(value) && value > 0 && value <= 100,
    ),
  );

/** A whole number from `min` to `max`, when given. */
export const IntegerBetween = (min: number, max: number) =>
  optional(
    rule(
      'integerBetween',
      `must be a whole number from ${min} to ${max}`,
      (value) => Number.isInteger(value) && value >= min && value <= max,
    ),
  );

export const PositiveInteger = () => optional(rule('positive', 'must be at least 1', (value) => value >= 1));

/** An amount of money in cents, from 1 to `max` (contract section 19: 100,000,000). */
export const Cents = (max: number) =>
  rule('cents', `must be a whole number of cents from 1 to ${max}`, (value) => Number.isInteger(value) && value >= 1 && value <= max);

/** Required text of printable characters only (no control character), 1 to `max` long: an identifier from elsewhere. */
export const PrintableText = (max: number) =>
  rule(
    'printable',
    `is required: 1 to ${max} printable characters`,
    // \p{Cc}: the C0 and C1 control characters (a tab, a newline, a NUL among them).
    (value) => typeof value === 'string' && characters(value) >= 1 && characters(value) <= max && !/\p{Cc}/u.test(value),
  );

export const CalendarDate = (options: { required: boolean }) => {
  const valid = rule('calendarDate', 'must be a real calendar date as YYYY-MM-DD', (value) => isCalendarDate(value));
  return options.required ? valid : optional(valid);
};

/** Not later than today in UTC; only judged once the value is a valid date. */
export const NotInFuture = () =>
  optional(rule('notInFuture', 'must not be in the future', (value) => !isCalendarDate(value) || compareDates(value, todayUtc()) <= 0));

/**
 * A required RFC 3339 date-time from `maxDaysAgo` days ago up to now (a webhook recovery's
 * `since`, contract section 22). Judged against this process's clock, with a minute's slack for
 * a client's clock a little ahead.
 */
export const RecentDateTime = (maxDaysAgo: number) =>
  compose(
    rule('dateTime', RFC3339_MESSAGE, (value) => isRfc3339DateTime(value)),
    rule('recent', `must be at most ${maxDaysAgo} days ago, and not in the future`, (value) => {
      if (!isRfc3339DateTime(value)) return true;
      const at = Date.parse(value);
      return at >= Date.now() - maxDaysAgo * 86_400_000 && at <= Date.now() + 60_000;
    }),
  );

const siblingDate = (args: ValidationArguments, field: string): string | undefined => {
  const other = (args.object as Record<string, unknown>)[field];
  return isCalendarDate(other) ? other : undefined;
};

/** Strictly after another date field (ignored while either is missing or invalid). */
export const After = (field: string) =>
  rule('after', `must be after ${field}`, (value, args) => {
    const other = siblingDate(args, field);
    return !isCalendarDate(value) || !other || compareDates(value, other) > 0;
  });

export const NotAfter = (field: string) =>
  optional(
    rule('notAfter', `must not be after ${field}`, (value, args) => {
      const other = siblingDate(args, field);
      return !isCalendarDate(value) || !other || compareDates(value, other) <= 0;
    }),
  );

export const WithinYearsOf = (field: string, years: number) =>
  rule('withinYears', `must be at most ${years} years after ${field}`, (value, args) => {
    const other = siblingDate(args, field);
    // Compared as dates: the limit may fall in year 10000, which does not sort as text.
    return !isCalendarDate(value) || !other || compareDates(value, addMonthsClamped(other, years * 12)) <= 0;
  });

/**
 * At most `max` items. The maximum is also put in the field's GraphQL extensions, where the
 * input shape check (input-shape.ts) finds it to refuse a longer list before walking its items.
 */
export const MaxItems = (max: number) =>
  compose(Extensions({ maxItems: max }), optional(ArrayMaxSize(max, { message: `must have at most ${max} items` }), ValidateNested()));

/** A JSON object within size and depth bounds; declared in the extensions like MaxItems. */
export const BoundedJson = (bounds: JsonBounds) =>
  compose(
    Extensions({ json: bounds }),
    optional(
      ValidateBy({
        name: 'boundedJson',
        validator: {
          validate: (value) => jsonProblem(value, bounds) === null,
          defaultMessage: (args) => (args && jsonProblem(args.value, bounds)) ?? 'is too large',
        },
      }),
    ),
  );

/** The owners' ownership percentages add up to at most `max`. */
export const OwnershipTotalAtMost = (max: number) =>
  rule('ownershipTotal', `ownership of all owners must add up to at most ${max}`, (owners) => {
    if (!Array.isArray(owners)) return true;
    const total = owners.reduce((sum: number, owner: { ownership?: number | null }) => sum + (owner?.ownership ?? 0), 0);
    // Percentages such as 33.33 do not add up exactly in binary floating point.
    return total <= max + 1e-9;
  });

export const Nested = () => optional(ValidateNested());
