import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers of `src/`, top to bottom (README, "Layout"): a file may import its own folder and
 * anything below it. An import that runs back up a layer must be listed here with its reason.
 * Folders of one layer may import each other, but never in a loop (the last test).
 */
const LAYERS = [
  ['main.ts', 'cluster-primary.ts', 'service-process.ts', 'service.ts', 'app.ts', 'service-core.ts', 'welcome.ts'],
  ['graphql-server', 'rest'],
  // The Express host's own steps, beneath both adapters and app.ts: the one writer, the
  // authentication and rate-limit gates, the access log. They are the framework halves of
  // auth/ and limits/ (whose decisions, values without Express, they send), so http/ stands
  // above both; nothing below it imports Express (the test below).
  ['http'],
  // The operation core beneath both hosts: free of Express and Apollo.
  ['operations'],
  // The features, in order: each depends on the ones below it, never the reverse.
  ['viewer'],
  ['quotes', 'webhooks', 'api-keys'],
  ['policies', 'events', 'audit'],
  ['organizations'],
  ['graphql', 'idempotency', 'limits', 'outbox', 'jobs'],
  ['auth', 'input'],
  ['observability'],
  ['errors', 'database', 'crypto', 'values'],
  ['config.ts', 'logger.ts', 'development-secrets.ts', 'node-floor.ts', 'v8-flags.ts', 'types'],
];

// None since issue 36: the kernel batches (graphql/batch.ts) and each feature gives its batch.
const ALLOWED_BACK_UP: Record<string, string> = {};

/** An import of Express (its types too), or of node:http's response type. */
const FRAMEWORK = /from\s+'express(?:\/[^']*)?'|import\s*\(\s*'express'|\bServerResponse\b[^;]*from\s+'(?:node:)?http'/;

const FEATURES = ['organizations', 'policies', 'quotes', 'viewer', 'events', 'webhooks', 'api-keys'];
const HOSTS = ['graphql-server', 'rest'];

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [],
  );
}

/** Every relative import inside `src/` as [importer, imported], both relative to `src/`. */
function imports(): Array<[string, string]> {
  const edges: Array<[string, string]> = [];
  for (const file of sourceFiles(SRC)) {
    for (const match of readFileSync(file, 'utf8').matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)) {
      const target = relative(SRC, normalize(join(dirname(file), match[1]))).replace(/\.js$/, '.ts');
      if (!target.startsWith('..')) edges.push([relative(SRC, file), target]);
    }
  }
  return edges;
}

const room = (path: string) => path.split('/')[0];
const layerOf = (path: string) => {
  const index = LAYERS.findIndex((layer) => layer.includes(room(path)));
  if (index === -1) throw new Error(`${path} is in no layer: add its folder to LAYERS`);
  return index;
};

describe('layers of src/', () => {
  it('every file sits in a layer', () => {
    for (const file of sourceFiles(SRC)) expect(() => layerOf(relative(SRC, file))).not.toThrow();
  });

  it('auth/, errors/ and input/ import no feature and no host', () => {
    const low = imports().filter(
      ([from, to]) => ['auth', 'errors', 'input'].includes(room(from)) && [...FEATURES, ...HOSTS].includes(room(to)),
    );
    expect(low).toEqual([]);
  });

  it('imports run down the layers, but for the ones listed with their reason', () => {
    const backUp = imports()
      .filter(([from, to]) => room(from) !== room(to) && layerOf(to) < layerOf(from))
      .map(([from, to]) => `${from} -> ${to}`);
    expect(backUp.sort()).toEqual(Object.keys(ALLOWED_BACK_UP).sort());
  });

  // One framework-free core, thin adapters (grafserv): auth/ and limits/ decide and return
  // values, errors/ makes the Answer, and http/ (with the hosts and start-up files above it)
  // alone turns them into Express responses.
  it('no file below http/ imports Express or writes a node:http response', () => {
    const framework = (file: string) => FRAMEWORK.test(readFileSync(join(SRC, file), 'utf8'));
    const files = sourceFiles(SRC).map((file) => relative(SRC, file));
    expect(files.filter((file) => layerOf(file) > layerOf('http/') && framework(file))).toEqual([]);
    // The pattern sees the imports it is meant to: the adapters' own.
    expect(['app.ts', 'http/write-answer.ts', 'rest/rest-router.ts'].filter((file) => !framework(file))).toEqual([]);
  });

  // mikro-orm.config.ts names every entity: below the start-up files it would be an import up.
  it('only the start-up files import from outside src/', () => {
    const outside = sourceFiles(SRC).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)]
        .map((match) => relative(SRC, normalize(join(dirname(file), match[1]))))
        .filter((target) => target.startsWith('..'))
        .map((target) => [relative(SRC, file), target]),
    );
    expect(outside.filter(([from]) => layerOf(from) !== 0).map(([from, to]) => `${from} -> ${to}`)).toEqual([]);
  });

  // The layer rule cannot see two folders of one layer importing each other (the features share
  // one): a loop between folders, of any length and in any layers, fails here. The back-up
  // imports listed above with their reason are the only edges left out.
  it('no loop between folders', () => {
    const edges = imports().filter(([from, to]) => !(`${from} -> ${to}` in ALLOWED_BACK_UP));
    expect(folderLoops(edges)).toEqual([]);
  });
});

/**
 * The loops of the folder graph (an edge per import between two folders),
 * in order: the strongly connected components of more than one folder (Tarjan), each named by
 * its folders and shown by one loop through it, `a, b: a -> b -> a`.
 */
function folderLoops(edges: Array<[string, string]>): string[] {
  const next = new Map<string, Set<string>>();
  for (const [from, to] of edges) {
    if (room(from) === room(to)) continue;
    if (!next.has(room(from))) next.set(room(from), new Set());
    next.get(room(from))!.add(room(to));
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (folder: string) => {
    index.set(folder, index.size);
    low.set(folder, index.get(folder)!);
    stack.push(folder);
    for (const to of next.get(folder) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(folder, Math.min(low.get(folder)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(folder, Math.min(low.get(folder)!, index.get(to)!));
    }
    if (low.get(folder) === index.get(folder)) {
      const component = stack.splice(stack.indexOf(folder));
      if (component.length > 1) components.push(component);
    }
  };
  for (const folder of [...next.keys()].sort()) if (!index.has(folder)) visit(folder);
  return components.map((component) => `${component.sort().join(', ')}: ${loopThrough(component, next)}`);
}

/** One loop from the component's first folder back to it, by the shortest path inside it. */
function loopThrough(component: string[], next: Map<string, Set<string>>): string {
  const [start] = component;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const folder = queue.shift()!;
    for (const to of [...(next.get(folder) ?? [])].sort()) {
      if (!component.includes(to)) continue;
      if (to === start) {
        const path = [folder];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0])!);
        return [...path, start].join(' -> ');
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, folder);
        queue.push(to);
      }
    }
  }
  return component.join(' <-> ');
}
