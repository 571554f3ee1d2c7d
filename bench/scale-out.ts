import { type HeraldCluster, startHeraldCluster } from '../test/helpers/herald-cluster.js'
import { waitFor } from '../test/helpers/worker-processes.js'
import { solidImage } from '../test/media/fixtures.js'
import { startServer } from '../test/media/servers.js'
import { percentile, round } from './stats.js'

export interface ScaleOutResult {
  name: string
  network: 'facebook' | 'twitter'
  posts: number
  createPerSecond: number
  drainSeconds: number
  targetsPerSecond: number
  fireLagP50Ms: number
  fireLagP99Ms: number
}

/**
 * Herald as users scale it out (docs/scale-out.md), on Postgres and an S3 bucket (s3rver), networks from the
 * sandbox: `posts` photo posts created through the API processes (split between them, 16 requests in
 * flight), then all made due at the same instant. Facebook fetches the image from the bucket through a
 * presigned URL (a short call: the lane is CPU-bound); X gets it uploaded and Herald then waits the spec's
 * 2 s (the lane is latency-bound). Fire lag: from that instant to the post appearing on the network.
 */
export async function benchScaleOut(
  name: string,
  layout: { single: true } | { apis: number; workers: number },
  network: 'facebook' | 'twitter',
  posts: number,
): Promise<ScaleOutResult> {
  const photo = await solidImage(1080, 1080, 'jpeg')
  const images = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(photo.length) })
    res.end(photo)
  })
  let cluster: HeraldCluster | undefined
  try {
    cluster = await startHeraldCluster({
      ...('single' in layout ? { single: true, apis: 1, workers: 0 } : layout),
      env: { HERALD_RATE_LIMIT_PER_MINUTE: '100000', HERALD_WORKER_POLL_MS: '100' },
      profiles: [{ network, username: network === 'facebook' ? 'Bench Bakery' : 'bench_x' }],
    })
    const c = cluster
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
    const content = (i: number) => `Bench post ${i}`
    const createStart = Date.now()
    let next = 0
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < posts) {
          const i = next++
          const { status, body } = await c.call(c.apis[i % c.apis.length]!, 'create_post', {
            content: content(i),
            platforms: [network],
            mediaUrl: `${images.url}/photo-${i}.jpg`,
            scheduleDate: tomorrow,
            scheduleTime: '12:00',
          })
          if (status !== 200) throw new Error(`create_post answered ${status}: ${JSON.stringify(body)}`)
        }
      }),
    )
    const createSeconds = (Date.now() - createStart) / 1000
    // Every target due at the same instant, a moment from now, with the workers idle and polling.
    const dueAt = Date.now() + 3_000
    await c.store.db.updateTable('posts').set({ due_at: dueAt }).execute()
    await c.store.db.updateTable('targets').set({ run_at: dueAt }).where('status', '=', 'pending').execute()
    let sent: { createdAt: number }[] = []
    await waitFor(
      async () => {
        const failed = await c.store.db
          .selectFrom('targets')
          .select('error')
          .where('status', '=', 'failed')
          .executeTakeFirst()
        if (failed) throw new Error(`a target failed: ${failed.error}`)
        sent =
          network === 'facebook'
            ? ((await c.sandbox('facebook', 'state')) as { posts: typeof sent }).posts
            : ((await c.sandbox('twitter', 'tweets')) as { createdAt: string }[]).map((tweet) => ({
                createdAt: Date.parse(tweet.createdAt),
              }))
        return sent.length >= posts
      },
      300_000,
      `${posts} posts on the simulated ${network}`,
    )
    const lags = sent.map((post) => post.createdAt - dueAt)
    const drainSeconds = Math.max(...lags) / 1000
    return {
      name,
      network,
      posts,
      createPerSecond: round(posts / createSeconds, 0),
      drainSeconds: round(drainSeconds, 1),
      targetsPerSecond: round(posts / drainSeconds, 1),
      fireLagP50Ms: round(percentile(lags, 50), 0),
      fireLagP99Ms: round(percentile(lags, 99), 0),
    }
  } finally {
    await cluster?.stop()
    await images.close()
  }
}
