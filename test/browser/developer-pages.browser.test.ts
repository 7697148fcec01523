import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';
import { describeUnless, missing } from '../support/programs.js';
import { launchChromium } from './chromium.js';

/**
 * The developer pages in headless Chromium (spec section 9): each page renders, is screenshot
 * into test-results/screenshots/, and asks nothing of any host but the service (every request
 * the page makes is recorded). GraphiQL also runs its preloaded example with a real token.
 * Apollo Sandbox is Apollo's page from Apollo's CDN: it is checked for what the service
 * controls (preloaded, no token, telemetry off) and its outside requests are blocked and listed.
 */
const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');

/** The page's document, inside tab.evaluate (the tests compile without the DOM's types). */
declare const document: { querySelector(selector: string): unknown; querySelectorAll(selector: string): Iterable<unknown> };

describeUnless(missing('chromium'), 'developer pages in headless Chromium', () => {
  let browser: Browser;
  const service = useTestService();

  beforeAll(async () => {
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /**
   * Opens a page, lets `inspect` check it, screenshots it, and checks that it asked nothing of
   * any host but the service and broke no Content-Security-Policy rule.
   */
  const visit = async (path: string, name: string, inspect: (tab: Page) => Promise<void>) => {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const requests: string[] = [];
    const complaints: string[] = [];
    tab.on('request', (request) => requests.push(request.url()));
    const failures: string[] = [];
    tab.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) complaints.push(message.text());
      // A page opens with no error in the console: a 404 (the favicon, F17) is one.
      if (message.type() === 'error') failures.push(message.text());
    });
    tab.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
    });
    try {
      await tab.goto(service.url + path, { waitUntil: 'load' });
      await inspect(tab);
      await tab.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
      expect(requests.filter((url) => !url.startsWith(service.url + '/') && !/^(data|blob):/.test(url))).toEqual([]);
      expect(complaints).toEqual([]);
      expect(failures).toEqual([]);
    } finally {
      await tab.close();
    }
  };

  /** Runs one of the editor's operations, chosen from the run button's list, and answers its result once it shows. */
  const runOperation = async (tab: Page, name: string) => {
    const before = await tab.evaluate(() => (document.querySelector('.graphiql-response .CodeMirror') as any)?.CodeMirror.getValue() ?? '');
    await tab.click('.graphiql-execute-button');
    await tab.getByRole('menuitem', { name, exact: true }).click();
    await tab.waitForFunction((previous) => {
      const text = (document.querySelector('.graphiql-response .CodeMirror') as any)?.CodeMirror.getValue() ?? '';
      return text !== previous && text.trim().startsWith('{');
    }, before);
    return JSON.parse(await tab.evaluate(() => (document.querySelector('.graphiql-response .CodeMirror') as any).CodeMirror.getValue()));
  };

  /** Sets the editor tool (variables or headers) whose text contains `marker`; answers its text before. */
  const setTool = (tab: Page, marker: string, value: object) =>
    tab.evaluate(
      ([marker, value]) => {
        const editors = [...document.querySelectorAll('.graphiql-editor-tool .CodeMirror')] as any[];
        const editor = editors.find((element) => element.CodeMirror.getValue().includes(marker));
        const before = editor.CodeMirror.getValue();
        editor.CodeMirror.setValue(value);
        return before;
      },
      [marker, JSON.stringify(value)] as const,
    );

  /** Opens the Docs pane and answers its text once it has loaded the schema (or failed to). */
  const docsText = async (tab: Page) => {
    await tab.click('button[aria-label="Show Documentation Explorer"]');
    await tab.waitForFunction(() =>
      /Root Types|Error fetching schema/.test((document.querySelector('.graphiql-doc-explorer') as any)?.textContent ?? ''),
    );
    return tab.textContent('.graphiql-doc-explorer');
  };

  /** Types into the headers editor as a person does: select all, paste. */
  const pasteHeaders = async (tab: Page, text: string) => {
    await tab.click('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror');
    await tab.keyboard.press('Control+A');
    await tab.keyboard.insertText(text);
  };

  /** The HTTP statuses of the page's GraphQL requests, each with its operation name. */
  const graphqlStatuses = (tab: Page) => {
    const statuses: Array<{ operationName: string | undefined; status: number }> = [];
    tab.on('response', (response) => {
      if (!response.url().endsWith('/graphql') || response.request().method() !== 'POST') return;
      statuses.push({
        operationName: (response.request().postDataJSON() as { operationName?: string }).operationName,
        status: response.status(),
      });
    });
    return statuses;
  };

  it('GraphiQL opens ready (issue 25, F1): the Docs pane lists Query with the placeholder header, and pasting a token is all it takes to run the example', async () => {
    await visit('/graphiql', 'graphiql-opens-ready', async (tab) => {
      const statuses = graphqlStatuses(tab);
      await tab.waitForSelector('.graphiql-container .graphiql-query-editor .CodeMirror');
      const docs = await docsText(tab);
      expect(docs).not.toContain('Error fetching schema');
      expect(docs).toContain('Query');
      expect(statuses.filter(({ status }) => status !== 200)).toEqual([]);

      const token = await service.token({ sub: 'graphiql-paster' });
      await pasteHeaders(tab, JSON.stringify({ Authorization: `Bearer ${token}` }));
      const example = await runOperation(tab, 'Example');
      expect(example.data.viewer.sub).toBe('graphiql-paster');
      expect(statuses.filter(({ operationName }) => operationName === 'Example')).toEqual([{ operationName: 'Example', status: 200 }]);
    });
  });

  it('GraphiQL fetches its schema again when the headers change, should the first fetch have failed (issue 25, F1)', async () => {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    let introspections = 0;
    // The first introspection is lost, as when the service is restarting.
    await tab.route('**/graphql', (route) => {
      if ((route.request().postData() ?? '').includes('IntrospectionQuery') && introspections++ === 0) return route.abort();
      return route.continue();
    });
    try {
      await tab.goto(service.url + '/graphiql', { waitUntil: 'load' });
      await tab.waitForSelector('.graphiql-container .graphiql-query-editor .CodeMirror');
      expect(await docsText(tab)).toContain('Error fetching schema');
      await pasteHeaders(tab, JSON.stringify({ Authorization: `Bearer ${await service.token({ sub: 'graphiql-paster' })}` }));
      await tab.waitForFunction(() => /Root Types/.test((document.querySelector('.graphiql-doc-explorer') as any)?.textContent ?? ''));
      expect(await tab.textContent('.graphiql-doc-explorer')).toContain('Query');
      expect(introspections).toBe(2);
    } finally {
      await tab.close();
    }
  });

  /** The variables editor's text once it contains `expected` (a fill lands just after its answer shows). */
  const variablesWith = async (tab: Page, expected: string) => {
    await tab.waitForFunction(
      (expected) =>
        ([...document.querySelectorAll('.graphiql-editor-tool .CodeMirror')] as any[]).some((editor) =>
          editor.CodeMirror.getValue().includes(expected),
        ),
      expected,
    );
    return JSON.parse(
      await tab.evaluate(
        () =>
          ([...document.querySelectorAll('.graphiql-editor-tool .CodeMirror')] as any[])
            .map((editor) => editor.CodeMirror.getValue())
            .find((text: string) => text.includes('quoteId')) as string,
      ),
    );
  };

  it("GraphiQL renders from the service alone and runs its examples as written with the start-up banner's kind of token (sub only; issue 36, F27): each answer fills in the next one's variables", async () => {
    await visit('/graphiql', 'graphiql', async (tab) => {
      await tab.waitForSelector('.graphiql-container .graphiql-query-editor .CodeMirror');
      const editorText = await tab.evaluate(() =>
        (document.querySelector('.graphiql-query-editor .CodeMirror') as any).CodeMirror.getValue(),
      );
      expect(editorText).toContain('query Example');
      // The headers tab holds the placeholder, never a token; a user pastes the banner's, which has no org claim.
      const token = await service.token({ sub: 'graphiql-user' });
      expect(await setTool(tab, 'Authorization', { Authorization: `Bearer ${token}` })).toContain('Bearer <token>');

      const example = await runOperation(tab, 'Example');
      expect(example.data.viewer).toEqual({ sub: 'graphiql-user', organizations: { edges: [] } });
      expect(example.data.coverages).toHaveLength(4);

      // No organization yet: Organization makes one, and its id lands in the variables.
      const organization = (await runOperation(tab, 'Organization')).data.createOrganization;
      expect(await variablesWith(tab, organization.id)).toMatchObject({ organizationId: organization.id });
      const quote = (await runOperation(tab, 'Quote')).data.createQuote;
      expect(quote.status).toBe('open');
      await variablesWith(tab, quote.id);
      const policy = (await runOperation(tab, 'Issue')).data.createPolicy;
      expect(policy.status).toBe('active');
      expect(await variablesWith(tab, `"number": ${policy.number}`)).toMatchObject({ quoteId: quote.id, number: policy.number });
      expect((await runOperation(tab, 'Pay')).data.recordPayment.billing).toMatchObject({ balance: -2900, status: 'credit' });
      expect((await runOperation(tab, 'Refund')).data.recordRefund.billing).toMatchObject({ balance: 0, status: 'settled' });
      const cancelled = (await runOperation(tab, 'Cancel')).data.cancelPolicy;
      expect(cancelled.cancellation).toMatchObject({ reason: 'insured_request', method: 'short_rate' });
      const reinstated = (await runOperation(tab, 'Reinstate')).data.reinstatePolicy;
      expect(reinstated).toMatchObject({ number: policy.number, status: 'active', cancellation: null });
      const renewable = (await runOperation(tab, 'Renewable')).data.createPolicy;
      await variablesWith(tab, `"renewable": ${renewable.number}`);
      const renewed = (await runOperation(tab, 'Renew')).data.renewPolicy;
      expect(renewed).toMatchObject({ renewalOf: renewable.number, coverage: { slug: 'accident-illness-plus' } });
    });
  });

  it("GraphiQL fills organizationId from Example's first organization, and keeps what the user typed", async () => {
    await visit('/graphiql', 'graphiql-example-fills', async (tab) => {
      await tab.waitForSelector('.graphiql-container .graphiql-query-editor .CodeMirror');
      const token = await service.token({ sub: 'graphiql-owner' });
      const organization = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
      await setTool(tab, 'Authorization', { Authorization: `Bearer ${token}` });
      // The user's own edit of another variable stays as typed when a fill lands.
      await setTool(tab, 'quoteId', {
        organizationId: 'ORGANIZATION_ID from Example or Organization',
        quoteId: 'typed',
        number: 0,
        renewable: 0,
      });
      await runOperation(tab, 'Example');
      expect(await variablesWith(tab, organization.body.id)).toEqual({
        organizationId: organization.body.id,
        quoteId: 'typed',
        number: 0,
        renewable: 0,
      });
      expect((await runOperation(tab, 'Quote')).data.createQuote.status).toBe('open');
    });
  });

  it('the REST reference renders every operation from the service alone', async () => {
    await visit('/api/v1/docs', 'rest-reference', async (tab) => {
      await tab.waitForSelector('.swagger-ui .info .title');
      expect(await tab.textContent('.swagger-ui .info .title')).toContain('Organization and Policy service');
      await tab.waitForSelector('.opblock');
      const operations = await tab.$$eval('.opblock-summary-path', (paths) => paths.map((path) => path.textContent?.trim()));
      expect(operations).toEqual(
        expect.arrayContaining(['/api/v1/organization', '/api/v1/organization/{id}', '/api/v1/policy', '/api/v1/policy/{id}']),
      );
      // Every operation of the service's own OpenAPI document, and nothing else.
      const document = (await (await fetch(`${service.url}/api/v1/openapi.json`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
      const documented = Object.values(document.paths).reduce((count, methods) => count + Object.keys(methods).length, 0);
      expect(operations.length).toBe(documented);
    });
  });

  it("the REST reference's examples run as shown with the start-up banner's kind of token, sub only (issue 25, F6): the organization, then a policy and a quote in it", async () => {
    await visit('/api/v1/docs', 'rest-reference-try-it-out', async (tab) => {
      await tab.waitForSelector('.opblock');
      await tab.click('.btn.authorize');
      await tab.fill('.auth-container input[type=text], .auth-container input:not([type])', await service.token({ sub: 'swagger-dev' }));
      await tab.click('.auth-btn-wrapper .btn.authorize');
      await tab.click('.auth-btn-wrapper .btn-done');
      /** Opens the operation, runs Try it out's Execute with the body shown, and answers the status and body. */
      const execute = async (operation: string) => {
        const block = tab.locator(`#operations-${operation}`);
        await block.locator('.opblock-summary').first().click();
        const shown = await block.locator('.body-param__text').inputValue();
        await block.locator('.btn.execute').click();
        await block.locator('.live-responses-table .response .response-col_status').first().waitFor();
        const status = Number((await block.locator('.live-responses-table .response .response-col_status').first().textContent())?.trim());
        const body = JSON.parse(
          (await block.locator('.live-responses-table .response .response-col_description pre').first().textContent()) ?? 'null',
        );
        return { status, body, shown: JSON.parse(shown) };
      };
      const organization = await execute('Organizations-createOrganization');
      expect(organization.status, JSON.stringify(organization.body)).toBe(200);
      const policy = await execute('Policies-createPolicy');
      expect(policy.shown.organizationId).toBe(organization.body.id);
      expect(policy.status, JSON.stringify(policy.body)).toBe(200);
      const quote = await execute('Quotes-createQuote');
      expect(quote.status, JSON.stringify(quote.body)).toBe(200);
      expect(quote.body.organizationId).toBe(organization.body.id);
    });
  });

  it('the index links every page, from the service alone', async () => {
    await visit('/', 'index', async (tab) => {
      const links = await tab.$$eval('a', (anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
      expect(links).toEqual(['/graphql', '/graphiql', '/api/v1/docs', '/api/v1/openapi.json', '/healthz', '/readyz', '/version']);
    });
  });

  it("Sandbox at /graphql: preloaded, no token, telemetry off; what it asks of Apollo's CDN is blocked and listed", async () => {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const blocked: string[] = [];
    await tab.route('**/*', (route) => {
      if (
        route
          .request()
          .url()
          .startsWith(service.url + '/')
      )
        return route.continue();
      blocked.push(new URL(route.request().url()).host);
      return route.abort();
    });
    try {
      const response = await tab.goto(service.url + '/graphql', { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      const html = await response!.text();
      expect(html).toContain('"runTelemetry":false');
      expect(html).toContain('query Example');
      expect(html).not.toMatch(/Bearer ey/);
      await tab.screenshot({ path: join(SCREENSHOTS, 'sandbox-offline.png') });
      // Apollo's page asks for its CDN and Google Fonts (docs/api-guide.md, "Clients: known quirks"): nothing else.
      expect([...new Set(blocked)].filter((host) => !host.endsWith('.apollographql.com') && host !== 'fonts.googleapis.com')).toEqual([]);
    } finally {
      await tab.close();
    }
  });
});
