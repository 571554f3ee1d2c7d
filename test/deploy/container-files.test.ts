import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { execForm, parseDockerfile } from './dockerfile.js'

/**
 * The Dockerfile and compose.yaml, checked without a Docker engine: the Dockerfile by dockerfile-utils' linter
 * (the validator of the Docker language server; hadolint, the reference linter, ships only as a binary
 * release), compose.yaml against the Compose specification's JSON schema (the copy dclint ships), and both
 * for what Herald's image promises.
 */

const root = path.resolve(import.meta.dirname, '../..')
const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8')
const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Record<string, any>>
}
// CommonJS packages, resolved the way Node resolves them for this project.
const require = createRequire(import.meta.url)

interface Diagnostic {
  message: string
  severity?: number
  range: { start: { line: number } }
}

describe('the Dockerfile', () => {
  const stages = parseDockerfile(dockerfile)
  const final = stages.at(-1)
  const last = (keyword: string) => final?.instructions.filter((i) => i.keyword === keyword).at(-1)

  it('lints clean (dockerfile-utils)', () => {
    const { validate } = require('dockerfile-utils') as { validate(text: string): Diagnostic[] }
    const problems = validate(dockerfile).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)
    expect(problems).toEqual([])
  })

  it('builds in one stage and runs in another, both on the pinned Node on Debian slim', () => {
    const pinned = fs.readFileSync(path.join(root, '.node-version'), 'utf8').trim()
    expect(stages.length).toBeGreaterThanOrEqual(2)
    for (const stage of stages) expect(stage.from).toBe(`node:${pinned}-bookworm-slim`)
    expect(
      final?.instructions.filter((i) => i.keyword === 'COPY').every((i) => i.args.includes('--from=build')),
    ).toBe(true)
  })

  it("runs as a user that is not root, with Debian's ffmpeg, its data in /data, ready on /readyz, npm start's command by default", () => {
    expect(last('USER')?.args).toBe('node')
    const installs = final?.instructions.filter(
      (i) => i.keyword === 'RUN' && i.args.includes('apt-get install'),
    )
    expect(installs?.some((i) => /\bffmpeg\b/.test(i.args))).toBe(true)
    expect(last('VOLUME')?.args).toBe('["/data"]')
    expect(last('ENV')?.args).toMatch(/HERALD_DATA_DIR=\/data/)
    expect(last('HEALTHCHECK')?.args).toMatch(/CMD \[.*\/readyz/)
    // npm start's own command (npm itself does not pass SIGTERM on: test/deploy/image-steps.test.ts).
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
    expect(execForm(last('CMD')?.args ?? '')).toEqual(manifest.scripts.start.split(' '))
  })
})

describe('compose.yaml', () => {
  it('validates against the Compose specification', () => {
    const schemaFile = path.join(
      path.dirname(require.resolve('dclint/package.json')),
      'schemas/compose.schema.json',
    )
    const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'))
    // The schema names draft-07 by an address Ajv (which speaks draft-07) knows under its older spelling.
    delete schema.$schema
    const ajv = new Ajv({ allErrors: true, strict: false })
    const validate = ajv.compile(schema)
    // Compose reads YAML merge keys (<<: *herald) before it checks the file against the schema; so does this.
    const valid = validate(compose)
    expect(valid ? [] : validate.errors?.map((e) => `${e.instancePath} ${e.message}`)).toEqual([])
  })

  it('runs the API, a worker, Postgres and MinIO, each with a health check, started in order', () => {
    const { services } = compose
    expect(Object.keys(services).sort()).toEqual(['api', 'bucket', 'minio', 'postgres', 'worker'])
    for (const name of ['api', 'worker', 'postgres', 'minio'])
      expect(services[name]?.healthcheck?.test, name).toBeDefined()
    expect(services.api?.command).toEqual(['node', 'bin/herald.js', 'api'])
    expect(services.worker?.command).toEqual(['node', 'bin/herald.js', 'worker'])
    for (const name of ['api', 'worker']) {
      expect(services[name]?.depends_on?.postgres?.condition).toBe('service_healthy')
      expect(services[name]?.depends_on?.minio?.condition).toBe('service_healthy')
      expect(services[name]?.depends_on?.bucket?.condition).toBe('service_completed_successfully')
      expect(services[name]?.environment?.HERALD_MEDIA_STORAGE).toBe('s3')
      expect(services[name]?.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//)
    }
    expect(services.worker?.depends_on?.api?.condition).toBe('service_healthy')
  })
})
