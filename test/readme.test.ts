import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * The README's quick-start and sandbox blocks, run verbatim against a Herald started the way the README
 * starts it (`npm start`, `HERALD_SANDBOX=1 npm start`, on the README's port 3000), so the README cannot
 * rot silently. Only the environment is the test's: a temporary data folder instead of `./data`.
 */

const root = path.resolve(import.meta.dirname, '..')
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8')
const README_URL = 'http://127.0.0.1:3000'

interface Block {
  lang: string
  code: string
}

function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}`)
  if (start < 0) throw new Error(`README has no section "${title}"`)
  const end = readme.indexOf('\n## ', start + 4)
  return readme.slice(start, end < 0 ? undefined : end)
}

function blocks(text: string): Block[] {
  return [...text.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, code: m[2]! }))
}

/** A block whose one command starts the server (`npm start`, with its environment prefix). */
const isServerStart = (block: Block) =>
  block.lang === 'sh' && /^(\w+=\S+ )*npm start\s*$/.test(block.code.trim())

let dataDir: string
let scratch: string
let server: ChildProcess | undefined

const env = () => {
  const base: Record<string, string | undefined> = { ...process.env, HERALD_DATA_DIR: dataDir, PORT: '3000' }
  for (const name of ['HERALD_SANDBOX', 'DATABASE_URL', 'PUBLIC_BASE_URL', 'HOST', 'HERALD_ENV_FILE'])
    delete base[name]
  base.HERALD_ENV_FILE = path.join(dataDir, 'no.env')
  base.HERALD_LOG_FORMAT = 'json'
  return base
}

async function startServer(command: string): Promise<void> {
  const busy = await fetch(`${README_URL}/healthz`).then(
    () => true,
    () => false,
  )
  if (busy)
    throw new Error('Port 3000 is taken: the README test runs Herald where the README does (port 3000)')
  const child = spawn('bash', ['-c', command], {
    cwd: root,
    env: env(),
    detached: true,
    stdio: 'ignore',
  })
  server = child
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}`)
    const up = await fetch(`${README_URL}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
    if (up) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${command} did not answer on port 3000`)
}

async function stopServer(): Promise<void> {
  const child = server
  server = undefined
  if (!child?.pid || child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  process.kill(-child.pid, 'SIGTERM')
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))])
  if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL')
}

function runBash(script: string, cwd = root): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd, env: env() })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }))
  })
}

beforeAll(() => {
  if (!fs.existsSync(path.join(root, 'dist', 'main.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm install and npm test do it)')
  dataDir = fs.mkdtempSync(path.join(tmpdir(), 'herald-readme-'))
  fs.mkdirSync(path.join(root, 'tmp'), { recursive: true })
  scratch = fs.mkdtempSync(path.join(root, 'tmp', 'readme-'))
})

afterAll(async () => {
  await stopServer()
  fs.rmSync(dataDir, { recursive: true, force: true })
  fs.rmSync(scratch, { recursive: true, force: true })
})

describe('the README runs as written', () => {
  it('opens with the two commands: npm install && npm start, and npm test', () => {
    const first = blocks(readme)[0]!
    expect(first.code).toMatch(/^npm install && npm start\b/)
    expect(first.code).toMatch(/\nnpm test\b/)
  })

  it('quick start: bootstrap, curl, the MCP inspector and the SDK snippet all reach the server', async () => {
    const quick = blocks(section('Quick start'))
    const shell = quick.filter((b) => b.lang === 'sh').map((b) => b.code)
    const snippets = quick.filter((b) => b.lang === 'js')
    expect(shell.length).toBeGreaterThanOrEqual(3)
    expect(snippets).toHaveLength(1)
    const file = /save this as `([\w.-]+\.mjs)`/.exec(section('Quick start'))?.[1]
    expect(file).toBeDefined()
    fs.writeFileSync(path.join(scratch, file!), snippets[0]!.code)

    await startServer('npm start')
    // The shell blocks share one shell, as a person's terminal does; the snippet runs where KEY is set.
    const script = [...shell, `cd ${JSON.stringify(scratch)} && node ${file}`].join('\n')
    const run = await runBash(script)
    expect(run.stderr).not.toMatch(/command not found|Error:/)
    expect(run.code).toBe(0)
    // bootstrap's JSON, curl's array, the inspector's result and the SDK's text each name the workspace.
    expect(run.stdout).toMatch(/"apiKey":"hk_/)
    expect(run.stdout.match(/My team/g)?.length ?? 0).toBeGreaterThanOrEqual(4)
    expect(run.stdout).toContain('"isOwner":true')
    await stopServer()
  }, 180_000)

  it('sandbox mode: connects a simulated profile on every network, publishes one post to all of them and an offer to both simulated locations, and delivers a test webhook to a local receiver', async () => {
    const sandbox = blocks(section('Sandbox mode (a demo without real networks)'))
    const start = sandbox.find(isServerStart)
    expect(start?.code.trim()).toBe('HERALD_SANDBOX=1 HERALD_ALLOW_PRIVATE_MEDIA=1 npm start')
    await startServer(start!.code.trim())
    // The Webhooks section's blocks run on after the sandbox's, in the same terminal.
    const hooks = blocks(section('Webhooks')).filter((b) => b.lang === 'sh')
    expect(hooks.length).toBeGreaterThanOrEqual(1)
    const script = [...sandbox.filter((b) => b.lang === 'sh' && !isServerStart(b)), ...hooks]
      .map((b) => b.code)
      .join('\n')
    const run = await runBash(script)
    expect(run.stderr).not.toMatch(/command not found|Error:/)
    expect(run.code).toBe(0)
    const connected = [...run.stdout.matchAll(/^\{"workspaceId".*$/gm)].map((m) => JSON.parse(m[0]))
    const networks = connected.map((profile: { platform: string }) => profile.platform)
    for (const network of ['twitter', 'youtube', 'bluesky', 'linkedin', 'facebook', 'instagram', 'tiktok'])
      expect(networks).toContain(network)
    const created = JSON.parse(run.stdout.split('\n').find((line) => line.includes('"postIds"'))!)
    const targets = created.posts.flatMap((post: { targets: unknown[] }) => post.targets)
    expect(targets).toHaveLength(connected.length)
    for (const target of targets) expect(target).toMatchObject({ status: 'published' })
    expect(run.stdout).toMatch(/Hello sandbox/)
    // Google Business Profile: the offer with a photo went to both locations of the simulated business.
    const offer = JSON.parse(
      run.stdout.split('\n').find((line) => line.includes('"postIds"') && line.includes('TWOFOR1'))!,
    )
    expect(
      offer.posts.map((post: { targets: Array<{ status: string }> }) => post.targets[0]?.status),
    ).toEqual(['published', 'published'])
    expect(run.stdout).toMatch(/"secret":"whsec_/)
    expect(run.stdout).toMatch(/^\S+ \{.*"type":"webhook\.test"/m)
    await stopServer()
  }, 180_000)
})
