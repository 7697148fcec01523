import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';

/** `/metrics` fetched and parsed by a Prometheus text-format parser (not the service's code). */
export async function scrape(baseUrl: string, token?: string): Promise<Scrape> {
  const response = await fetch(new URL('/metrics', baseUrl), { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  const text = await response.text();
  return new Scrape(parsePrometheusTextFormat(text), text);
}

export class Scrape {
  constructor(
    readonly families: MetricFamily[],
    readonly text: string,
  ) {}

  family(name: string): MetricFamily | undefined {
    return this.families.find((family) => family.name === name);
  }

  /** The value of the counter or gauge sample of `name` with exactly these labels; 0 when absent. */
  value(name: string, labels: Record<string, string> = {}): number {
    const sample = this.family(name)?.metrics.find((each) => sameLabels(each.labels ?? {}, labels));
    return Number(sample?.value ?? 0);
  }

  /**
   * A histogram's `_count` for these labels, in the order written. Read from the text: the
   * parser keeps a labelled histogram's buckets but drops its labels, count and sum.
   */
  histogramCount(name: string, labels: Record<string, string>): number {
    const selector = Object.entries(labels)
      .map(([key, value]) => `${key}="${value}"`)
      .join(',');
    const line = this.text.split('\n').find((each) => each.startsWith(`${name}_count{${selector}} `));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  }
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
