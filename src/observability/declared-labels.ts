/**
 * Label values that come from callers (GraphQL operation names, error codes), kept to the values
 * the service declared: a declared value is its own label, anything else is `overflow`.
 * Prometheus keeps every series it has seen, so a label a caller could fill would grow its memory
 * and this process's without end.
 *
 * Only declarations count, never how often a value is seen: admitting by frequency let 120
 * invented names sent 5 times each take every place from the names a frontend really uses
 * (security review 3, L3; review 2, L8). The operation names are declared by the operator and
 * the service (contract section 13: the trusted manifest, the REST documents,
 * METRICS_OPERATION_NAMES), the codes by the service (errors/safe-errors.ts).
 */
export class DeclaredLabels {
  private readonly declared = new Set<string>();

  constructor(
    private readonly overflow: string,
    values: Iterable<string> = [],
  ) {
    this.declare(values);
  }

  /** Values that have a series of their own from now on. */
  declare(values: Iterable<string>): void {
    for (const value of values) this.declared.add(value);
  }

  /** `value` when it was declared; otherwise the overflow. */
  label(value: string): string {
    return this.declared.has(value) ? value : this.overflow;
  }
}
