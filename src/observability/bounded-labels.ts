/**
 * Label values a caller chooses (GraphQL operation names), kept to a bounded set of series:
 * at most `max` values, plus the values named in `keep` (the trusted manifest's names: the
 * operator's list, always their own series). Prometheus keeps every series it has seen, so
 * unbounded labels would grow its memory and this process's without end.
 *
 * Frequent values keep their series; rare ones share `overflow`. While there is room a value is
 * admitted at once. Once the set is full, a value must be seen more often than the least-seen
 * admitted one to take its place, and that one's series are removed (`onEvict`). So a flood of
 * one-off names, however early it comes, cannot keep or push out the names a frontend sends all
 * day: a name seen twice already beats a flood's names, seen once each (security review 2, L8).
 * Values not admitted are counted in a table of at most ten times `max`; when it fills, its
 * counts are halved, so a flood is forgotten while a name that keeps coming keeps counting.
 */
export class BoundedLabels {
  /** Admitted values and how often each was seen. */
  private readonly admitted = new Map<string, number>();
  private readonly candidates = new Map<string, number>();
  private readonly kept = new Set<string>();

  constructor(
    private readonly max: number,
    private readonly overflow: string,
    private readonly onEvict: (value: string) => void = () => undefined,
  ) {}

  /** Values that always have a series of their own, outside the `max`. */
  keep(values: Iterable<string>): void {
    for (const value of values) this.kept.add(value);
  }

  /** `value` when it has (or now gets) a series of its own; otherwise the overflow. */
  label(value: string): string {
    if (this.kept.has(value)) return value;
    const seen = this.admitted.get(value);
    if (seen !== undefined) {
      this.admitted.set(value, seen + 1);
      return value;
    }
    if (this.admitted.size < this.max) {
      this.admitted.set(value, 1);
      return value;
    }
    const count = (this.candidates.get(value) ?? 0) + 1;
    const [rarest, rarestCount] = this.rarest();
    if (count > rarestCount) {
      this.admitted.delete(rarest);
      this.onEvict(rarest);
      this.candidates.delete(value);
      this.candidates.set(rarest, rarestCount);
      this.admitted.set(value, count);
      return value;
    }
    this.candidates.set(value, count);
    if (this.candidates.size > this.max * 10) this.forgetHalf();
    return this.overflow;
  }

  /** The least-seen admitted value (the set is full, so there is one). */
  private rarest(): [string, number] {
    let rarest: [string, number] = ['', Infinity];
    for (const entry of this.admitted) if (entry[1] < rarest[1]) rarest = entry;
    return rarest;
  }

  private forgetHalf(): void {
    for (const [value, count] of this.candidates) {
      if (count < 2) this.candidates.delete(value);
      else this.candidates.set(value, count >> 1);
    }
  }
}
