import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NODE_FLOOR_MAJOR, nodeFloorProblem } from '../../src/node-floor.js';

describe('the Node.js floor (contract section 16)', () => {
  it('refuses a Node older than the floor with one line naming the version it needs and the one it got', () => {
    const problem = nodeFloorProblem('v20.20.2');
    expect(problem).toContain('Node.js 24 or newer is required; this is v20.20.2.');
    expect(problem).not.toContain('\n');
    expect(nodeFloorProblem('v23.11.0')).toBeDefined();
  });

  it('accepts the floor and anything newer', () => {
    expect(nodeFloorProblem('v24.0.0')).toBeUndefined();
    expect(nodeFloorProblem('v26.10.0')).toBeUndefined();
    expect(nodeFloorProblem(process.version)).toBeUndefined();
  });

  it('is the same major in package.json engines, .nvmrc and the Node that npm install brings', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      engines: { node: string };
      optionalDependencies: Record<string, string>;
    };
    expect(pkg.engines.node).toBe(`>=${NODE_FLOOR_MAJOR}`);
    expect(readFileSync('.nvmrc', 'utf8').trim()).toBe(String(NODE_FLOOR_MAJOR));
    for (const [name, version] of Object.entries(pkg.optionalDependencies).filter(([name]) => name.startsWith('node-'))) {
      expect(version.split('.')[0], name).toBe(String(NODE_FLOOR_MAJOR));
    }
  });
});
