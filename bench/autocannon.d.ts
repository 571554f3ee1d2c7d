/** The slice of autocannon (which ships no types) that the benchmarks use. */
declare module 'autocannon' {
  interface Histogram {
    average: number
    p50: number
    p99: number
  }
  interface Result {
    requests: Histogram
    latency: Histogram
    errors: number
    non2xx: number
  }
  interface Options {
    url: string
    method?: string
    connections?: number
    duration?: number
    headers?: Record<string, string>
    body?: string
    requests?: Array<{ setupRequest?: (request: Record<string, unknown>) => Record<string, unknown> }>
  }
  export default function autocannon(options: Options): Promise<Result>
}
