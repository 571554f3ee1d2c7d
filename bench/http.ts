import { spawn } from 'node:child_process'
import autocannon from 'autocannon'
import { round } from './stats.js'

export interface HttpResult {
  name: string
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  errors: number
  non2xx: number
}

async function load(
  name: string,
  url: string,
  body: string | (() => string),
  headers: Record<string, string>,
  seconds: number,
  connections = 16,
): Promise<HttpResult> {
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...headers },
    ...(typeof body === 'string'
      ? { body }
      : { requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: body() }) }] }),
  })
  return {
    name,
    requestsPerSecond: round(result.requests.average, 0),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  }
}

/** create_post (scheduled, one target) and list_posts (page 1 of 100,000 posts) against a bare route. */
export async function benchHttp(seconds = 10): Promise<HttpResult[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/http-server.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const ready = await new Promise<{ herald: number; bare: number; key: string; listKey: string }>(
    (resolve, reject) => {
      let buffer = ''
      child.stdout?.on('data', (chunk) => {
        buffer += chunk.toString()
        const line = buffer.split('\n').find((l) => l.startsWith('{'))
        if (line) resolve(JSON.parse(line))
      })
      child.on('exit', (code) => reject(new Error(`bench server exited with ${code}`)))
    },
  )
  try {
    const herald = `http://127.0.0.1:${ready.herald}/api/tools`
    let n = 0
    const createBody = () =>
      JSON.stringify({
        content: `Benchmark post ${n++}`,
        targetAccounts: [{ platform: 'twitter', profileId: 'bench-1' }],
        scheduleDate: '2035-06-01',
        scheduleTime: '12:00',
        timezone: 'Europe/Paris',
      })
    const results: HttpResult[] = []
    const bare = (when: string) =>
      load(`bare fastify route (${when})`, `http://127.0.0.1:${ready.bare}/bare`, '{}', {}, seconds)
    results.push(await bare('first'))
    results.push(
      await load(
        'create_post (scheduled, one target)',
        `${herald}/create_post`,
        createBody,
        { 'x-api-key': ready.key },
        seconds,
      ),
    )
    const listHeaders = { 'x-api-key': ready.listKey }
    results.push(
      await load('list_posts (page 1 of 100,000 posts)', `${herald}/list_posts`, '{}', listHeaders, seconds),
    )
    results.push(
      await load(
        'list_posts (page 1 of 100,000 posts), 1 connection',
        `${herald}/list_posts`,
        '{}',
        listHeaders,
        seconds,
        1,
      ),
    )
    // This machine's speed drifts within a run; the bare route is measured again and the faster of the two
    // runs is the baseline, so a slow moment cannot flatter Herald's share.
    results.push(await bare('last'))
    return results
  } finally {
    child.kill('SIGTERM')
  }
}
