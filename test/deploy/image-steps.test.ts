import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { freePort } from '../helpers/harness.js'
import { copyOf, envOf, execForm, type Instruction, parseDockerfile } from './dockerfile.js'

/**
 * The image's build and start steps, played without a Docker engine: the build stage's COPY instructions
 * make a clean copy of what they name, its RUN steps run there (those that download, from Debian or the npm
 * registry, are listed instead: tests run offline, and the project's installed dependencies stand in for
 * `npm ci`), the final stage's COPY --from=build steps make the image's /app, and its CMD, HEALTHCHECK and the
 * worker command of compose.yaml run as the image runs them: as a user that is not root (nobody, when these
 * tests run as root), with the image's ENV and a data folder of that user's for /data.
 */

const root = path.resolve(import.meta.dirname, '../..')
const stages = parseDockerfile(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8'))
const [build, final] = [stages[0], stages.at(-1)] as [(typeof stages)[0], (typeof stages)[0]]
const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), { merge: true })

/** Steps that fetch from outside (Debian, the npm registry): not run offline, named instead. */
const DOWNLOADS = /apt-get|npm ci|npm rebuild|npm prune/

const work = fs.mkdtempSync(path.join(tmpdir(), 'herald-image-'))
const buildDir = path.join(work, 'build')
const appDir = path.join(work, 'app')
const runAs = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined
const notRun: string[] = []
const children: ChildProcess[] = []

/**
 * COPY as Docker does it: a folder's contents go into the destination folder, a file into a destination
 * that ends in `/` keeps its name. A symbolic link (the stand-in node_modules) is copied as the link it is.
 */
function dockerCopy(source: string, destination: string) {
  const into = destination.endsWith('/') || destination === '.'
  if (fs.lstatSync(source).isSymbolicLink()) {
    const target = into ? path.join(destination, path.basename(source)) : destination
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.symlinkSync(fs.readlinkSync(source), target)
  } else if (fs.statSync(source).isDirectory()) fs.cpSync(source, destination, { recursive: true })
  else {
    const target = into ? path.join(destination, path.basename(source)) : destination
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.copyFileSync(source, target)
  }
}

const under = (dir: string, destination: string) =>
  `${path.join(dir, destination)}${destination.endsWith('/') ? '/' : ''}`

/**
 * The Node this test runs on, where the image's user can run it: hard-linked into the work folder (the
 * pinned release usually sits in root's home, which another user cannot enter).
 */
function nodeForTheImageUser(): string {
  const bin = path.join(work, 'node', 'bin')
  fs.mkdirSync(bin, { recursive: true })
  try {
    fs.linkSync(process.execPath, path.join(bin, 'node'))
  } catch {
    fs.copyFileSync(process.execPath, path.join(bin, 'node'))
  }
  return bin
}

function playBuildStage() {
  fs.mkdirSync(buildDir, { recursive: true })
  for (const { keyword, args } of build.instructions) {
    if (keyword === 'COPY') {
      const { sources, destination } = copyOf(args)
      for (const source of sources) dockerCopy(path.join(root, source), under(buildDir, destination))
    } else if (keyword === 'RUN' && DOWNLOADS.test(args)) {
      notRun.push(args)
      // `npm ci`: the project's installed dependencies stand in for the download.
      if (args.includes('npm ci'))
        fs.symlinkSync(path.join(root, 'node_modules'), path.join(buildDir, 'node_modules'))
    } else if (keyword === 'RUN')
      execFileSync('sh', ['-c', args], { cwd: buildDir, stdio: 'pipe', env: process.env })
  }
}

function playFinalStageCopies() {
  fs.mkdirSync(appDir, { recursive: true })
  for (const { keyword, args } of final.instructions) {
    if (keyword === 'RUN') notRun.push(args)
    if (keyword !== 'COPY') continue
    const { from, sources, destination } = copyOf(args)
    expect(from).toBe('build')
    for (const source of sources)
      dockerCopy(path.join(buildDir, path.relative('/app', source)), under(appDir, destination))
  }
  // The image's files are readable by its user; /data is theirs.
  execFileSync('chmod', ['-R', 'a+rX', work])
}

const imageEnv = () => {
  const env: Record<string, string> = {}
  for (const i of final.instructions.filter((i: Instruction) => i.keyword === 'ENV'))
    Object.assign(env, envOf(i.args))
  return env
}

interface Started {
  child: ChildProcess
  env: NodeJS.ProcessEnv
  exited: Promise<number | null>
  output: () => string
}

async function startAsImage(command: string[], nodeBin: string, name: string): Promise<Started> {
  const data = path.join(work, `data-${name}`)
  const home = path.join(work, `home-${name}`)
  for (const dir of [data, home]) {
    fs.mkdirSync(dir, { recursive: true })
    if (runAs) fs.chownSync(dir, runAs.uid, runAs.gid)
  }
  const env = {
    PATH: `${nodeBin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    npm_config_update_notifier: 'false',
    ...imageEnv(),
    // The image's /data, and 127.0.0.1 rather than every address: tests listen on loopback only.
    HERALD_DATA_DIR: data,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  }
  const child = spawn(command[0] as string, command.slice(1), { cwd: appDir, env, ...(runAs ?? {}) })
  children.push(child)
  let output = ''
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, env, exited, output: () => output }
}

/** Runs the image's HEALTHCHECK command until it passes (or the time is up); returns whether it did. */
async function healthy(started: Started, command: string[], withinMs = 60_000) {
  const deadline = Date.now() + withinMs
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) return false
    const code = await new Promise<number | null>((resolve) => {
      const probe = spawn(command[0] as string, command.slice(1), { env: started.env, ...(runAs ?? {}) })
      probe.once('exit', resolve)
    })
    if (code === 0) return true
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  return false
}

describe("the image's build and start steps, in a clean copy of the repository", () => {
  let nodeBin: string
  const healthcheck = () => {
    const args = final.instructions.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? ''
    return execForm(args.slice(args.indexOf('CMD ') + 4)) as string[]
  }

  beforeAll(() => {
    nodeBin = nodeForTheImageUser()
    playBuildStage()
    playFinalStageCopies()
  }, 300_000)
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    fs.rmSync(work, { recursive: true, force: true })
  })

  it('builds: the compiled service and the dashboard bundles are in the image', () => {
    expect(fs.existsSync(path.join(appDir, 'dist', 'main.js'))).toBe(true)
    expect(fs.existsSync(path.join(appDir, 'dist', 'assets', 'manifest.json'))).toBe(true)
    expect(notRun.every((step) => DOWNLOADS.test(step) || /mkdir -p \/data/.test(step))).toBe(true)
  })

  it("starts with its default command (npm start's) as a user that is not root, healthy by its HEALTHCHECK, and stops on SIGTERM with exit 0", async () => {
    const cmd = execForm(final.instructions.filter((i) => i.keyword === 'CMD').at(-1)?.args ?? '') as string[]
    const started = await startAsImage(cmd, nodeBin, 'all')
    expect(await healthy(started, healthcheck()), started.output()).toBe(true)
    const database = fs.statSync(path.join(started.env.HERALD_DATA_DIR as string, 'herald.sqlite'))
    expect(database.uid).toBe(runAs?.uid ?? process.getuid?.())
    started.child.kill('SIGTERM')
    expect(await started.exited, started.output()).toBe(0)
  }, 120_000)

  it("runs compose.yaml's worker command from the same image, healthy by the same check", async () => {
    const started = await startAsImage(compose.services.worker.command, nodeBin, 'worker')
    expect(await healthy(started, healthcheck()), started.output()).toBe(true)
    started.child.kill('SIGTERM')
    expect(await started.exited, started.output()).toBe(0)
  }, 120_000)
})
