// Reading the app's /metrics as a scraper would: one sample's value by its name and labels.
import { request } from 'undici';

/** The value of the sample `name{labels}` (labels as Prometheus writes them, or none) at `baseUrl`/metrics; 0 when absent. */
export async function metricValue(baseUrl: string, sample: string): Promise<number> {
  const text = await (await request(`${baseUrl}/metrics`)).body.text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return Number(line?.split(' ').pop() ?? 0);
}
