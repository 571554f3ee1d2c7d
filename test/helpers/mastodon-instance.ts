import Fastify from 'fastify'
import { registerMastodonSandbox } from '../../src/sandbox/mastodon/index.js'
import type { MastodonSandboxState } from '../../src/sandbox/mastodon/state.js'
import { freePort } from './harness.js'

/**
 * One simulated Mastodon instance at the root of its own server (`http://127.0.0.1:<port>/api/v1/…`), as
 * clients that build every address from an origin expect (masto), with the authorize page a person would
 * fill in, answered by {@link signIn} as they would.
 */
export interface SimulatedInstance {
  url: string
  host: string
  sandbox: MastodonSandboxState
  /** The code the instance's authorize page sends back when `username` signs in and authorizes. */
  signIn(input: {
    clientId: string
    redirectUri: string
    scope: string
    username: string
    codeChallenge?: string
  }): Promise<string>
  close(): Promise<void>
}

export async function startSimulatedInstance(
  host = 'instance.example',
  clock: () => number = () => Date.now(),
): Promise<SimulatedInstance> {
  const server = Fastify()
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const sandbox = registerMastodonSandbox(server, {
    prefix: '',
    rootInstance: host,
    publicUrl: url,
    clock,
  })
  await server.listen({ host: '127.0.0.1', port })
  return {
    url,
    host,
    sandbox,
    async signIn(input) {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: input.clientId,
        redirect_uri: input.redirectUri,
        scope: input.scope,
        ...(input.codeChallenge
          ? { code_challenge: input.codeChallenge, code_challenge_method: 'S256' }
          : {}),
      })
      const page = await fetch(`${url}/oauth/authorize?${query}`)
      if (page.status !== 200)
        throw new Error(`the authorize page answered ${page.status}: ${await page.text()}`)
      const form = new URLSearchParams(query)
      form.set('username', input.username)
      form.set('decision', 'authorize')
      const answer = await fetch(`${url}/oauth/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        redirect: 'manual',
      })
      const code = new URL(answer.headers.get('location') ?? '', url).searchParams.get('code')
      if (!code) throw new Error(`the authorize form answered ${answer.status} without a code`)
      return code
    },
    close: () => server.close(),
  }
}
