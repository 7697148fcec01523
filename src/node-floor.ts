/**
 * The oldest Node.js major the service runs on (contract section 16): the same as `engines` in
 * package.json and `.nvmrc` (a unit test keeps the three equal). Node 20's end of life was
 * 2026-04-30, and the next majors of this stack (pg-boss, OpenTelemetry, vitest) need 22 or newer.
 */
export const NODE_FLOOR_MAJOR = 24;

/** One line saying why `version` (a `process.version`) is too old, or undefined when it is not. */
export function nodeFloorProblem(version: string): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (major >= NODE_FLOOR_MAJOR) return undefined;
  return (
    `Node.js ${NODE_FLOOR_MAJOR} or newer is required; this is ${version}. ` +
    `Run it through npm (npm start, npm test: on Linux, npm install brings Node ${NODE_FLOOR_MAJOR} into node_modules/.bin), ` +
    `or install Node ${NODE_FLOOR_MAJOR} (.nvmrc).`
  );
}

// Checked as this module loads: main.ts imports it before anything else, so an older Node stops
// with one line rather than somewhere inside the service's modules.
const problem = nodeFloorProblem(process.version);
if (problem) {
  console.error(problem);
  process.exit(1);
}
