import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The manifest GraphQL Code Generator's client preset writes for test/operations
 * (test/generated/persisted-documents.json), as GRAPHQL_TRUSTED_DOCUMENTS, and its documents.
 */
export const CODEGEN_MANIFEST = resolve('test/generated/persisted-documents.json');
export const manifest = JSON.parse(readFileSync(CODEGEN_MANIFEST, 'utf8')) as Record<string, string>;
/** A generated document's id in the manifest. */
export const idOf = (document: unknown) => (document as { __meta__: { hash: string } }).__meta__.hash;
/** The manifest's text plus a comment: no longer the manifest's text, so Apollo Server runs it. */
export const asText = (document: unknown) => `${manifest[idOf(document)]}\n# sent as text`;
