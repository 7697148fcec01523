import { GraphQLError, type GraphQLSchema, type ValidationRule } from 'graphql';
import { readFileSync } from 'node:fs';
import { prepareDocument, type PreparedDocument } from '../operations/prepared-document.js';
import type { GraphqlParams } from '../operations/graphql-request.js';

/** A document of the frontends' manifest, prepared once (prepared-document.ts). */
export interface TrustedDocument extends PreparedDocument {
  /** Its id in the manifest, as clients send it. */
  id: string;
}

/** Both build tools' manifests: GraphQL Code Generator's (and Relay's) `{ id: text }`, and Apollo's. */
interface ApolloManifest {
  format: 'apollo-persisted-query-manifest';
  version: 1;
  operations: Array<{ id: string; body: string }>;
}

/**
 * Trusted documents (persisted documents): the GraphQL documents a frontend's build wrote into
 * a manifest, loaded from GRAPHQL_TRUSTED_DOCUMENTS at start-up. Each is validated with the rules
 * `/graphql` applies to any document and compiled with graphql-jit once; a request then names
 * it by id (`documentId`, or Apollo's `extensions.persistedQuery.sha256Hash`) instead of sending
 * its text, and skips parsing, validation and Apollo's pipeline. A request sending a manifest
 * document's exact text runs it the same way. With `only` (GRAPHQL_TRUSTED_DOCUMENTS_ONLY), any
 * other document is refused: a production API runs only what its frontends were built with.
 *
 * Ids are the manifest's keys as they are (sha256 from Code Generator and Apollo, md5 by
 * default from Relay): the manifest is trusted, so they are not recomputed. An id may be written
 * and sent with or without the `sha256:` prefix of the GraphQL-over-HTTP persisted documents appendix.
 */
export class TrustedDocuments {
  private readonly byId = new Map<string, TrustedDocument>();
  private readonly byText = new Map<string, TrustedDocument>();

  private constructor(
    documents: TrustedDocument[],
    /** Refuse any document that is not in the manifest. */
    readonly only: boolean,
  ) {
    for (const document of documents) {
      this.byId.set(bareId(document.id), document);
      this.byText.set(document.text, document);
    }
  }

  /** No manifest: `documentId` is refused as unsupported, and every document text is run by Apollo. */
  static none(): TrustedDocuments {
    return new TrustedDocuments([], false);
  }

  /** Reads and prepares a manifest; throws, naming the variable and the document, when one cannot run. */
  static load(path: string, schema: GraphQLSchema, rules: readonly ValidationRule[], only: boolean): TrustedDocuments {
    let manifest: unknown;
    try {
      manifest = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: cannot read ${path} as JSON (${(error as Error).message})`, { cause: error });
    }
    const entries = manifestEntries(manifest, path);
    const documents = entries.map(({ id, body }) => ({
      id,
      ...prepareDocument(schema, body, `GRAPHQL_TRUSTED_DOCUMENTS: the document ${id}`, rules),
    }));
    return new TrustedDocuments(documents, only);
  }

  get size(): number {
    return this.byId.size;
  }

  /** The names of the manifest's operations (its frontends'): each keeps a metrics series. */
  operationNames(): string[] {
    return [...this.byId.values()].flatMap((document) => (document.operation.name ? [document.operation.name.value] : []));
  }

  /**
   * The trusted document a `/graphql` request asks for, or null when Apollo runs it from its
   * text. Throws the request's refusal: an id unknown here (PERSISTED_QUERY_NOT_FOUND, or
   * PERSISTED_QUERY_NOT_SUPPORTED without a manifest), an id sent by GET, or, with `only`, a
   * text that is not in the manifest (PERSISTED_QUERY_NOT_IN_LIST).
   */
  find(params: GraphqlParams, method: string): TrustedDocument | null {
    if (params.query !== undefined) {
      const document = this.byText.get(params.query);
      if (document || !this.only) return document ?? null;
      throw notInList();
    }
    const id = requestedId(params);
    if (id === undefined) {
      if (this.only) throw notInList();
      return null;
    }
    if (this.byId.size === 0)
      throw persistedError('PERSISTED_QUERY_NOT_SUPPORTED', 'This service has no trusted documents: send the document as `query`.');
    if (method !== 'POST') throw persistedError('BAD_REQUEST', 'Send a trusted document id by POST.');
    const document = typeof id === 'string' ? this.byId.get(bareId(id)) : undefined;
    if (!document) throw persistedError('PERSISTED_QUERY_NOT_FOUND', 'No trusted document has this id.');
    return document;
  }
}

/** An id without the `sha256:` prefix: Code Generator writes it, Apollo's link sends the bare hash. */
function bareId(id: string): string {
  return id.startsWith('sha256:') ? id.slice(7) : id;
}

/** `documentId`, or Apollo's `extensions.persistedQuery.sha256Hash`; undefined when neither was sent. */
function requestedId(params: GraphqlParams): unknown {
  if (params.documentId !== undefined) return params.documentId;
  const persisted = (params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery;
  return persisted === undefined ? undefined : (persisted?.sha256Hash ?? null);
}

function manifestEntries(manifest: unknown, path: string): Array<{ id: string; body: string }> {
  const invalid = (why: string) => new Error(`GRAPHQL_TRUSTED_DOCUMENTS: ${path} ${why}`);
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) throw invalid('is not a manifest object');
  if ((manifest as Partial<ApolloManifest>).format === 'apollo-persisted-query-manifest') {
    const { version, operations } = manifest as ApolloManifest;
    if (version !== 1 || !Array.isArray(operations)) throw invalid('is an Apollo manifest of an unknown version');
    for (const operation of operations) {
      if (typeof operation?.id !== 'string' || typeof operation.body !== 'string')
        throw invalid('has an operation without a string id and body');
    }
    return operations.map(({ id, body }) => ({ id, body }));
  }
  const entries = Object.entries(manifest as Record<string, unknown>);
  for (const [id, body] of entries) {
    if (typeof body !== 'string') throw invalid(`maps ${id} to something that is not a document's text`);
  }
  if (entries.length === 0) throw invalid('holds no document');
  return entries.map(([id, body]) => ({ id, body: body as string }));
}

function notInList(): GraphQLError {
  return persistedError(
    'PERSISTED_QUERY_NOT_IN_LIST',
    'This service runs only its trusted documents: send the `documentId` your build made.',
  );
}

function persistedError(code: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}
