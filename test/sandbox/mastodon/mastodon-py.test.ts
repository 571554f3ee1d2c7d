import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SimulatedInstance, startSimulatedInstance } from '../../helpers/mastodon-instance.js'
import { noisePng } from '../../media/fixtures.js'

/**
 * Debian's python3-mastodon (Mastodon.py) holds the simulator to the real API as masto does: it registers
 * an app, signs in with the code the authorize page sends back, uploads an image and waits until it is
 * processed, posts a status with it and reads it back. Mastodon.py speaks form bodies where masto speaks
 * JSON and multipart, and reads `/api/v1/instance/` for the server's version. It runs where the module is
 * installed (`apt-get install python3-mastodon`; the CI script installs it) and says so where it is not.
 */

/** The Python that has the module: Debian's own first (a pyenv shim on PATH may not see dist-packages). */
const python = ['/usr/bin/python3', 'python3'].find(
  (candidate) => spawnSync(candidate, ['-c', 'import mastodon'], { stdio: 'ignore' }).status === 0,
)

const REGISTER = `
import json, sys
from mastodon import Mastodon
cid, secret = Mastodon.create_app('mastodon.py test', api_base_url=sys.argv[1], redirect_uris=sys.argv[2], scopes=['read', 'write'])
print(json.dumps({'client_id': cid, 'client_secret': secret}))
`

const PUBLISH = `
import json, sys
from mastodon import Mastodon
url, cid, secret, redirect, code, image = sys.argv[1:7]
api = Mastodon(client_id=cid, client_secret=secret, api_base_url=url)
api.log_in(code=code, redirect_uri=redirect, scopes=['read', 'write'])
me = api.account_verify_credentials()
media = api.media_post(image, mime_type='image/png', description='Noise from Python', synchronous=True)
status = api.status_post('Hello from Mastodon.py #tests', media_ids=[media['id']], spoiler_text='noise', visibility='unlisted', language='en')
again = api.status(status['id'])
listed = api.account_statuses(me['id'], limit=5)
print(json.dumps({
  'username': me['username'],
  'media_url': media['url'],
  'status_id': str(status['id']),
  'spoiler_text': again['spoiler_text'],
  'visibility': again['visibility'],
  'media_ids': [str(m['id']) for m in again['media_attachments']],
  'listed': [str(s['id']) for s in listed],
}))
`

describe.skipIf(!python)('Mastodon.py against the Mastodon simulator', () => {
  let instance: SimulatedInstance
  let dir: string
  const redirectUri = 'https://client.example/callback'

  beforeAll(async () => {
    instance = await startSimulatedInstance()
    dir = mkdtempSync(path.join(tmpdir(), 'herald-mastodon-py-'))
  })
  afterAll(async () => {
    expect(instance.sandbox.violations).toEqual([])
    await instance.close()
    rmSync(dir, { recursive: true, force: true })
  })

  // Asynchronously: the simulator answering Mastodon.py runs in this process's event loop.
  const run = (script: string, args: string[]) =>
    new Promise<any>((resolve, reject) => {
      const child = spawn(python!, ['-c', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      let err = ''
      child.stdout.on('data', (chunk) => (out += chunk))
      child.stderr.on('data', (chunk) => (err += chunk))
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
      child.on('close', (status) => {
        clearTimeout(timer)
        if (status !== 0) reject(new Error(`Mastodon.py failed: ${err}`))
        else resolve(JSON.parse(out.trim().split('\n').at(-1)!))
      })
    })

  it('registers an app, signs in, uploads an image waiting for its processing, posts a status with it and reads it back', async () => {
    const app = await run(REGISTER, [instance.url, redirectUri])
    const code = await instance.signIn({
      clientId: app.client_id,
      redirectUri,
      scope: 'read write',
      username: 'python_user',
    })
    const image = path.join(dir, 'noise.png')
    writeFileSync(image, await noisePng(900, 700))
    const out = await run(PUBLISH, [instance.url, app.client_id, app.client_secret, redirectUri, code, image])
    expect(out).toMatchObject({ username: 'python_user', spoiler_text: 'noise', visibility: 'unlisted' })
    expect(out.media_url).toMatch(/^http/)
    expect(out.media_ids).toHaveLength(1)
    expect(out.listed).toContain(out.status_id)
  }, 90_000)
})

if (!python)
  process.stderr.write(
    'Mastodon.py is not installed (apt-get install python3-mastodon): the Mastodon.py client test is skipped.\n',
  )
