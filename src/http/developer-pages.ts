import { Router, type Request, type Response } from 'express';
import { jsonAnswer } from '../errors/answer.js';
import { writeAnswer } from './write-answer.js';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ServiceVersion } from './version.js';
import { favicon } from './favicon.js';
import { addDays, addMonthsClamped, todayUtc } from '../values/calendar-date.js';

/**
 * The developer pages of spec section 9: GraphiQL at `/graphiql`, Swagger UI at `/api/v1/docs`
 * and an index at `/`. Every script, style and font comes from the service itself (from the
 * packages in node_modules), so they work with no internet, and the Content-Security-Policy
 * below lets a page load and call nothing but this origin. Apollo Sandbox at `/graphql` is
 * Apollo's landing page (graphql-server/apollo.ts); it loads from Apollo's CDN, so GraphiQL is
 * the page for offline use.
 */

/**
 * The example operations preloaded in GraphiQL and Sandbox: who am I and the catalog, an
 * organization, then the life of a policy (contract section 14) with a payment and a refund
 * (section 19). The dates are set when the
 * service starts, a term from that day for a year, a cancellation a month in and a change two
 * months in, so each step succeeds as written: the cancellation lies in the future, and so can
 * always be reinstated. The renewal renews a policy of its own that ends 30 days after that day,
 * inside the default window. The policy and the quote name their organization in a variable, so
 * that they run with the start-up banner's token, which has no org claim (issue 36, F27); in
 * GraphiQL, each answer fills in the variables the next operation takes (EXAMPLE_FILLS). No `<`,
 * `>` or `&` in this text: see EXAMPLE_VARIABLES.
 */
export function exampleOperation(today: string = todayUtc()): string {
  return `# Put a token in the Authorization header (the start-up banner's will do), then run the
# operations in order from the run button's list. In GraphiQL each answer fills in the
# variables the next one takes (see the Variables tab); elsewhere, copy them there yourself.
# Example fills organizationId with your first organization, if you have one.
query Example {
  viewer {
    sub
    organizations(first: 10) {
      edges { node { id name } }
    }
  }
  coverages { slug name monthlyPremium }
}

# An organization of your own (under the token's org, if it has one): fills organizationId.
mutation Organization {
  createOrganization(input: { legalName: "Paws and Claws LLC", legalType: "llc", taxId: "12-3456789" }) {
    id name version
  }
}

# The life of a policy. Quote prices it in the organization: fills quoteId.
mutation Quote($organizationId: ID!) {
  createQuote(input: {
    organizationId: $organizationId
    ownerFirstname: "Rosa", ownerLastname: "Diaz", petName: "Biscuit", petDOB: "2022-05-01"
    effectiveDate: "${today}", expirationDate: "${addDays(today, 365)}"
    coverageSlug: "accident-illness-basic"
  }) {
    id status expiresAt totalPremium currency
    charges { dueDate amount }
  }
}

# Issues the quote at its price: fills number.
mutation Issue($quoteId: ID!) {
  createPolicy(input: { quoteId: $quoteId }) {
    number status
    charges { id type dueDate amount }
  }
}

# Records two months paid ahead (the service moves no money: the integrator's payment provider
# does, and records it here): billing shows a credit of one month's premium.
mutation Pay($number: SafeInt!) {
  recordPayment(number: $number, input: { amount: 5800, reference: "pi_graphiql_0001" }) {
    number version
    billing { billed paid balance pastDue status nextDueDate nextDueAmount }
  }
}

# Pays that month back: a refund takes at most the credit balance.
mutation Refund($number: SafeInt!) {
  recordRefund(number: $number, input: { amount: 2900, reference: "re_graphiql_0001" }) {
    number version billing { balance status }
    payments(first: 10) { edges { node { type amount reference date } } }
  }
}

# Cancels a month in: a credit for each period from then on (short_rate: less a 10% fee).
mutation Cancel($number: SafeInt!) {
  cancelPolicy(number: $number, input: { effectiveDate: "${addDays(today, 30)}", reason: insured_request }) {
    number status
    cancellation { effectiveDate reason method credited fee }
    charges { type amount reverses }
  }
}

# Undoes it: a reversal of each of its charges.
mutation Reinstate($number: SafeInt!) {
  reinstatePolicy(number: $number, input: {}) {
    number status cancellation { effectiveDate }
    transactions(first: 10) { edges { node { type effectiveDate changes } } }
  }
}

# Renames the pet and moves to a richer plan from the third billing date: a credit and a new
# premium for each period from then on. Reads show it once in effect.
mutation Change($number: SafeInt!) {
  changePolicy(number: $number, input: { effectiveDate: "${addMonthsClamped(today, 2)}", petName: "Biscuit Diaz", coverageSlug: "accident-illness-plus" }) {
    number petName coverage { slug }
    charges { type periodStart amount }
    transactions(first: 10) { edges { node { type effectiveDate changes } } }
  }
}

# Renewal opens 60 days before expirationDate (POLICY_RENEWAL_WINDOW_DAYS): this policy ends in
# 30 days. Fills renewable.
mutation Renewable($organizationId: ID!) {
  createPolicy(input: {
    organizationId: $organizationId
    ownerFirstname: "Rosa", ownerLastname: "Diaz", petName: "Biscuit", petDOB: "2022-05-01"
    effectiveDate: "${addDays(today, -335)}", expirationDate: "${addDays(today, 30)}"
    coverageSlug: "accident-illness-basic"
  }) {
    number status expirationDate
  }
}

# Renews it for a year from its expirationDate on another plan, at today's price: answers the new policy.
mutation Renew($renewable: SafeInt!) {
  renewPolicy(number: $renewable, input: { coverageSlug: "accident-illness-plus" }) {
    number status renewalOf effectiveDate expirationDate
    coverage { slug monthlyPremium }
    transactions(first: 1) { edges { node { type changes } } }
  }
}
`;
}

export const EXAMPLE_OPERATION = exampleOperation();

/**
 * The variables preloaded with it: placeholders for what Example or Organization, Quote, Issue and
 * Renewable answer. No `<`, `>` or `&` in these texts, nor in the operations: Apollo Server's
 * Sandbox page escapes only the first of each in its inline script (getEmbeddedHTML.js,
 * `.replace`, not `.replaceAll`), and the header placeholder has it.
 */
export const EXAMPLE_VARIABLES = {
  organizationId: 'ORGANIZATION_ID from Example or Organization',
  quoteId: 'QUOTE_ID from Quote',
  number: 0,
  renewable: 0,
};

/**
 * What GraphiQL copies from an example's answer into its variables, so that the next example
 * runs as it stands, in the browser, with no trip to the terminal (issue 36, F27): the value at
 * `path` in the answer's `data`, when there is one. `unlessSet`: only over the placeholder, so
 * that Example does not replace an organization the user chose or made.
 */
export const EXAMPLE_FILLS: readonly {
  operation: string;
  variable: keyof typeof EXAMPLE_VARIABLES;
  path: (string | number)[];
  unlessSet?: true;
}[] = [
  { operation: 'Example', variable: 'organizationId', path: ['viewer', 'organizations', 'edges', 0, 'node', 'id'], unlessSet: true },
  { operation: 'Organization', variable: 'organizationId', path: ['createOrganization', 'id'] },
  { operation: 'Quote', variable: 'quoteId', path: ['createQuote', 'id'] },
  { operation: 'Issue', variable: 'number', path: ['createPolicy', 'number'] },
  { operation: 'Renewable', variable: 'renewable', path: ['createPolicy', 'number'] },
];

/** The header placeholder preloaded with it: never a real token. */
export const EXAMPLE_HEADERS = { Authorization: 'Bearer <token>' };

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Swagger UI and GraphiQL set styles from script; their fonts and icons are data: URLs.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** Each served asset: its URL under /assets/ and its file in node_modules. */
const ASSETS: Record<string, string> = {
  'react.js': join(packageDir('react'), 'umd/react.production.min.js'),
  'react-dom.js': join(packageDir('react-dom'), 'umd/react-dom.production.min.js'),
  'graphiql.js': join(packageDir('graphiql'), 'graphiql.min.js'),
  'graphiql.css': join(packageDir('graphiql'), 'graphiql.min.css'),
  'swagger-ui.js': join(packageDir('swagger-ui-dist'), 'swagger-ui-bundle.js'),
  'swagger-ui.css': join(packageDir('swagger-ui-dist'), 'swagger-ui.css'),
};

/** The pages' own start-up scripts: files of their own, so the policy needs no inline script. */
const SCRIPTS: Record<string, string> = {
  // The schema is public while this page is served (an introspection-only query needs no token,
  // spec section 2), so GraphiQL fetches it without the Authorization header: the page opens
  // with its Docs and completion ready whatever the headers editor holds (the placeholder, an
  // expired token). Every other operation is sent with the headers as written. Should the schema
  // still fail to load (the service restarting), an edit of the headers fetches it again.
  //
  // The variables editor is the page's to fill as well as the user's: an answer to an example
  // named in EXAMPLE_FILLS writes its value there (shown in the Variables tab), and GraphiQL shows
  // a new variables prop in its editor. The user's own edits are kept (onEditVariables), so a fill
  // changes one value and leaves the rest as the user wrote it.
  'graphiql-start.js': `
const FILLS = ${JSON.stringify(EXAMPLE_FILLS)};
const PLACEHOLDERS = ${JSON.stringify(EXAMPLE_VARIABLES)};
let variables = ${JSON.stringify(JSON.stringify(EXAMPLE_VARIABLES, null, 2))};
const fill = (operationName, result) => {
  let values;
  try { values = JSON.parse(variables || '{}'); } catch { return; }
  let filled = false;
  for (const { operation, variable, path, unlessSet } of FILLS) {
    if (operation !== operationName) continue;
    const value = path.reduce((node, key) => (node == null ? undefined : node[key]), result && result.data);
    if (value == null || (unlessSet && values[variable] !== PLACEHOLDERS[variable])) continue;
    values[variable] = value;
    filled = true;
  }
  if (filled) { variables = JSON.stringify(values, null, 2); render(); }
};
const fillFrom = (url, init) => fetch(url, init).then((response) => {
  const { operationName } = JSON.parse(init.body);
  if (FILLS.some(({ operation }) => operation === operationName)) {
    response.clone().json().then((result) => fill(operationName, result), () => {});
  }
  return response;
});
const send = GraphiQL.createFetcher({ url: new URL('/graphql', location.href).href, fetch: fillFrom });
const withoutAuthorization = (headers) =>
  Object.fromEntries(Object.entries(headers || {}).filter(([name]) => name.toLowerCase() !== 'authorization'));
const makeFetcher = () => (params, options) =>
  params.operationName === 'IntrospectionQuery'
    ? send(params, { ...options, headers: withoutAuthorization(options && options.headers) })
    : send(params, options);
let fetcher = makeFetcher();
let schemaLoaded = false;
let refetch;
const root = ReactDOM.createRoot(document.getElementById('graphiql'));
const render = () => root.render(React.createElement(GraphiQL, {
  fetcher,
  defaultQuery: ${JSON.stringify(EXAMPLE_OPERATION)},
  variables,
  onEditVariables: (value) => { variables = value; },
  defaultHeaders: ${JSON.stringify(JSON.stringify(EXAMPLE_HEADERS, null, 2))},
  defaultEditorToolsVisibility: 'headers',
  shouldPersistHeaders: false,
  onSchemaChange: () => { schemaLoaded = true; },
  // A new fetcher is what makes GraphiQL introspect again.
  onEditHeaders: () => {
    if (schemaLoaded) return;
    clearTimeout(refetch);
    refetch = setTimeout(() => { fetcher = makeFetcher(); render(); }, 300);
  },
}));
render();
`,
  // Issue 25, F6: a policy or a quote must name its organization when the token carries no org
  // claim, as the start-up banner's does not, and an example cannot know an id in advance. Once
  // "Try it out" has created an organization on this page, the policy and quote examples carry
  // its id (shown in the body editor, nothing added behind the user's back), so each then runs
  // as shown with any token. The operations' descriptions say so.
  'swagger-ui-start.js': `
const NAMING_AN_ORGANIZATION = [['/api/v1/policy', ['typical', 'renewable']], ['/api/v1/quote', ['typical']]];
const useOrganization = (organizationId) => {
  const spec = window.ui.specSelectors.specJson().toJS();
  for (const [path, names] of NAMING_AN_ORGANIZATION) {
    const examples = spec.paths[path].post.requestBody.content['application/json'].examples;
    for (const name of names) {
      const { organizationId: previous, ...rest } = examples[name].value;
      examples[name].value = { organizationId, ...rest };
    }
  }
  window.ui.specActions.updateJsonSpec(spec);
  // A body editor already open shows the new example too.
  for (const [path] of NAMING_AN_ORGANIZATION) {
    const example = spec.paths[path].post.requestBody.content['application/json'].examples.typical.value;
    window.ui.oas3Actions.setRequestBodyValue({ pathMethod: [path, 'post'], value: JSON.stringify(example, null, 2) });
  }
};
window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: true,
  persistAuthorization: false,
  validatorUrl: null,
  responseInterceptor: (response) => {
    // An organization created (the list answers { items }, a create the organization itself).
    const created = response.ok && new URL(response.url, location.href).pathname === '/api/v1/organization' && response.body && typeof response.body.id === 'string';
    if (created) setTimeout(() => useOrganization(response.body.id));
    return response;
  },
});
`,
};

const page = (title: string, head: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`;

const GRAPHIQL_PAGE = page(
  'GraphiQL: Organization and Policy service',
  '<link rel="stylesheet" href="/assets/graphiql.css">\n<link rel="stylesheet" href="/assets/pages.css">',
  `<div id="graphiql">Loading GraphiQL…</div>
<script src="/assets/react.js"></script>
<script src="/assets/react-dom.js"></script>
<script src="/assets/graphiql.js"></script>
<script src="/assets/graphiql-start.js"></script>`,
);

const DOCS_PAGE = page(
  'REST reference: Organization and Policy service',
  '<link rel="stylesheet" href="/assets/swagger-ui.css">',
  `<div id="swagger-ui"></div>
<script src="/assets/swagger-ui.js"></script>
<script src="/assets/swagger-ui-start.js"></script>`,
);

const PAGES_CSS = 'html, body, #graphiql { height: 100%; margin: 0; }\nbody { font-family: system-ui, sans-serif; }\n';

/** What is here, for a person (HTML) or a tool (JSON) arriving at the root. */
const LINKS = {
  graphql: { href: '/graphql', title: 'GraphQL endpoint; Apollo Sandbox in a browser (loads from Apollo’s CDN)' },
  graphiql: { href: '/graphiql', title: 'GraphiQL, served entirely by this service (works offline)' },
  docs: { href: '/api/v1/docs', title: 'REST reference (Swagger UI)' },
  openapi: { href: '/api/v1/openapi.json', title: 'OpenAPI 3.1 document of the REST layer' },
  healthz: { href: '/healthz', title: 'Liveness' },
  readyz: { href: '/readyz', title: 'Readiness: database reachable and migrated' },
  version: { href: '/version', title: 'Version and commit' },
};

function indexPage(version: ServiceVersion): string {
  const items = Object.values(LINKS)
    .map((link) => `<li><a href="${link.href}"><code>${link.href}</code></a>: ${link.title}</li>`)
    .join('\n');
  return page(
    'Organization and Policy service',
    '<link rel="stylesheet" href="/assets/pages.css">',
    `<main style="max-width: 48rem; margin: 2rem auto; padding: 0 1rem">
<h1>Organization and Policy service</h1>
<p>Version ${version.version}${version.commit ? ` (${version.commit.slice(0, 12)})` : ''}. Every API call needs <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<ul>
${items}
</ul>
</main>`,
  );
}

const sendPage = (req: Request, res: Response, html: string) =>
  writeAnswer(req, res, { status: 200, contentType: 'text/html', body: html, headers: { 'content-security-policy': CSP } });

/** The pages and their assets, mounted before authentication: none needs a token. */
export function developerPages(version: ServiceVersion): Router {
  const router = Router();
  router.get('/', (req: Request, res: Response) => {
    if (req.accepts(['json', 'html']) === 'html') return sendPage(req, res, indexPage(version));
    writeAnswer(
      req,
      res,
      jsonAnswer({
        service: 'Organization and Policy service',
        version: version.version,
        links: Object.fromEntries(Object.entries(LINKS).map(([name, link]) => [name, link.href])),
      }),
    );
  });
  router.get('/graphiql', (req, res) => sendPage(req, res, GRAPHIQL_PAGE));
  router.get('/api/v1/docs', (req, res) => sendPage(req, res, DOCS_PAGE));
  // Assets are files: Express serves them, always 200 (or its own 304 and 416 for a file).
  for (const [name, file] of Object.entries(ASSETS)) {
    router.get(`/assets/${name}`, (_req, res) => res.set('cache-control', 'public, max-age=3600').sendFile(file));
  }
  for (const [name, source] of Object.entries(SCRIPTS)) {
    router.get(`/assets/${name}`, (_req, res) => res.set('cache-control', 'no-cache').type('js').send(source));
  }
  router.get('/assets/pages.css', (_req, res) => res.type('css').send(PAGES_CSS));
  const icon = favicon();
  router.get('/favicon.ico', (_req, res) => res.set('cache-control', 'public, max-age=86400').type('image/x-icon').send(icon));
  return router;
}
