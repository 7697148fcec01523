import { getOperationAST, parse, type SelectionSetNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ORGANIZATION_KEY_ORDER } from '../../src/organizations/organization-event.js';
import { POLICY_KEY_ORDER } from '../../src/policies/policy-event.js';
import { QUOTE_KEY_ORDER } from '../../src/quotes/quote.reads.js';
import {
  CANCEL_POLICY,
  CHANGE_POLICY,
  CREATE_ORGANIZATION,
  CREATE_POLICY,
  CREATE_QUOTE,
  ORGANIZATION,
  ORGANIZATIONS,
  POLICIES,
  POLICY,
  QUOTE,
  REINSTATE_POLICY,
  RENEW_POLICY,
  UPDATE_ORGANIZATION,
} from '../../src/rest/operations.js';
import { selectedFields } from '../../src/rest/openapi-schemas.js';
import { inKeyOrder, type KeyOrder } from '../../src/values/key-order.js';

/**
 * The key order a REST document selects on its root field named `root` (the first by default),
 * or on the object at `path` below it (a list's items), through the fragments it spreads; an
 * address is a leaf (REST gives it flat).
 */
function selected(document: string, root?: string, path: string[] = []): KeyOrder {
  const parsed = parse(document);
  const roots = selectedFields(parsed, getOperationAST(parsed)!.selectionSet);
  let set = (root ? roots.find((field) => field.name.value === root) : roots[0])!.selectionSet!;
  for (const name of path) set = selectedFields(parsed, set).find((field) => field.name.value === name)!.selectionSet!;
  const walk = (selections: SelectionSetNode): KeyOrder =>
    selectedFields(parsed, selections).map((selection) => {
      const name = selection.alias?.value ?? selection.name.value;
      return selection.selectionSet && name !== 'address' ? ([name, walk(selection.selectionSet)] as const) : name;
    });
  return walk(set);
}

describe("events' key orders are the REST answers' (contract section 18)", () => {
  it('the policy event object selects what every REST policy answer selects, in order', () => {
    for (const document of [CREATE_POLICY, POLICY, CHANGE_POLICY, CANCEL_POLICY, REINSTATE_POLICY, RENEW_POLICY])
      expect(selected(document)).toEqual(POLICY_KEY_ORDER);
    // List items answer the read's shape too (contract section 18).
    expect(selected(POLICIES, 'organization', ['policies', 'edges', 'node'])).toEqual(POLICY_KEY_ORDER);
    expect(selected(POLICIES, 'viewer', ['policies', 'edges', 'node'])).toEqual(POLICY_KEY_ORDER);
  });

  it('the organization event object selects what the REST organization answers select, in order', () => {
    for (const document of [CREATE_ORGANIZATION, UPDATE_ORGANIZATION, ORGANIZATION])
      expect(selected(document)).toEqual(ORGANIZATION_KEY_ORDER);
    expect(selected(ORGANIZATIONS, 'organization', ['children', 'edges', 'node'])).toEqual(ORGANIZATION_KEY_ORDER);
    expect(selected(ORGANIZATIONS, 'viewer', ['organizations', 'edges', 'node'])).toEqual(ORGANIZATION_KEY_ORDER);
  });

  it('the quote event object selects what the REST quote answers select, in order', () => {
    for (const document of [CREATE_QUOTE, QUOTE]) expect(selected(document)).toEqual(QUOTE_KEY_ORDER);
  });
});

describe('inKeyOrder', () => {
  it('orders keys, nested objects and list items; fills absent keys with null; drops the rest', () => {
    const order: KeyOrder = ['a', ['b', ['x', 'y']], ['c', ['z']], 'd'];
    const value = { d: 4, extra: 'dropped', c: [{ z: 1, w: 2 }], b: { y: 2, x: 1 }, a: 0 };
    expect(JSON.stringify(inKeyOrder(order, value))).toBe('{"a":0,"b":{"x":1,"y":2},"c":[{"z":1}],"d":4}');
    expect(inKeyOrder(order, { a: 1 })).toEqual({ a: 1, b: null, c: null, d: null });
  });
});
