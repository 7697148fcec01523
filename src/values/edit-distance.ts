/**
 * The optimal string alignment distance (Damerau–Levenshtein without re-editing a transposed
 * pair): insertions, deletions, substitutions and swaps of two adjacent characters each cost
 * one. Letters are compared case-insensitively, so `petDob` is 0 from `petDOB`. Field names are
 * short, so the full table is cheap; beyond `limit` the exact value does not matter.
 */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const rows: number[][] = Array.from({ length: x.length + 1 }, (_, i) => [i, ...Array<number>(y.length).fill(0)]);
  for (let j = 1; j <= y.length; j++) rows[0][j] = j;
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[x.length][y.length];
}

/** The candidate closest to `name` within `limit` edits (the first listed on a tie), or null. */
export function closestName(name: string, candidates: readonly string[], limit = 2): string | null {
  let best: { candidate: string; distance: number } | null = null;
  for (const candidate of candidates) {
    // Names whose lengths differ by more than the limit are further than it.
    if (Math.abs(candidate.length - name.length) > limit) continue;
    const distance = editDistance(name, candidate);
    if (distance <= limit && (best === null || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate ?? null;
}
