/**
 * Label values a caller chooses (GraphQL operation names), kept to a bounded set: the first
 * `max` distinct values each get a series of their own, any later one shares `overflow`.
 * A million names from one caller make at most `max` + 1 series; Prometheus keeps every series
 * it has seen, so unbounded labels would grow its memory and this process's without end.
 */
export class BoundedLabels {
  private readonly admitted = new Set<string>();

  constructor(
    private readonly max: number,
    private readonly overflow: string,
  ) {}

  /** `value` when it already has a series or there is room for one; otherwise the overflow. */
  label(value: string): string {
    if (this.admitted.has(value)) return value;
    if (this.admitted.size >= this.max) return this.overflow;
    this.admitted.add(value);
    return value;
  }
}
