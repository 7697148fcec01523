import { ApolloArmor } from '@escape.tech/graphql-armor';
import { specifiedRules, type ValidationRule } from 'graphql';
import type { GraphQLLimits } from '../config.js';
import { oneMutationField } from './one-mutation-field.js';

/**
 * The limits checked while validating: depth, aliases and directives (GraphQL Armor), one create
 * per mutation. Tokens are counted by graphql-js while parsing; cost once the variables are known.
 * Field suggestions are hidden in production.
 */
export function documentRules(limits: GraphQLLimits, production: boolean): DocumentRules {
  const armor = new ApolloArmor({
    maxDepth: { n: limits.depth },
    maxAliases: { n: limits.aliases },
    maxDirectives: { n: limits.directives },
    // Armor's token check throws from a plugin hook, which Apollo answers with a 500; graphql-js
    // counts tokens while parsing instead (apollo.ts, parseOptions), which is a plain 400.
    maxTokens: { enabled: false },
    // Cost is ours (query-cost.ts): Armor's cost model grows with depth and ignores page sizes.
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: production },
  }).protect();
  const extra: ValidationRule[] = [...armor.validationRules, oneMutationField];
  return { extra, all: [...specifiedRules, ...extra], plugins: armor.plugins };
}

export interface DocumentRules {
  /** Apollo Server's `validationRules` (applied after graphql-js's own). */
  extra: ValidationRule[];
  /** The whole set, for documents validated outside Apollo (prepared-document.ts). */
  all: readonly ValidationRule[];
  /** GraphQL Armor's Apollo plugins (field suggestions hidden in production). */
  plugins: unknown[];
}
