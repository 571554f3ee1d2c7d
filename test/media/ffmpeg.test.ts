import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { startSummary } from '../../src/main.js'
import { describeFfmpeg, ffmpegVersion, findFfmpeg, shippedFfmpegPath } from '../../src/media/ffmpeg.js'

describe('ffmpeg discovery', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-ffmpeg-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const shipped = shippedFfmpegPath()

  /** A stand-in executable that answers `-version` as ffmpeg would, naming `version`. */
  function fakeFfmpeg(name: string, version: string | undefined): string {
    const file = path.join(dir, name)
    writeFileSync(
      file,
      version ? `#!/bin/sh\necho "ffmpeg version ${version} Copyright"\n` : '#!/bin/sh\nexit 1\n',
    )
    chmodSync(file, 0o755)
    return file
  }

  it('finds the binary shipped by @ffmpeg-installer/ffmpeg first and reads its version', async () => {
    expect(shipped).toMatch(/@ffmpeg-installer\/linux-x64\/ffmpeg$/)
    const found = await findFfmpeg()
    expect(found?.path).toBe(shipped)
    expect(found?.version).toMatch(/\S+/)
    expect(describeFfmpeg(found)).toBe(`${shipped} (${found?.version})`)
  })

  it('uses HERALD_FFMPEG_PATH over the shipped binary', async () => {
    const custom = fakeFfmpeg('custom-ffmpeg', '7.1-custom')
    expect(await findFfmpeg({ configured: custom })).toEqual({ path: custom, version: '7.1-custom' })
  })

  it('reports none when HERALD_FFMPEG_PATH is none, or names something that is not ffmpeg', async () => {
    expect(await findFfmpeg({ configured: 'none' })).toBeUndefined()
    expect(await findFfmpeg({ configured: fakeFfmpeg('broken', undefined) })).toBeUndefined()
    expect(await findFfmpeg({ configured: path.join(dir, 'missing') })).toBeUndefined()
    expect(describeFfmpeg(undefined)).toBe('none')
  })

  it('falls back to ffmpeg on PATH when none is shipped, and to none when there is neither', async () => {
    const onPath = fakeFfmpeg('path-ffmpeg', '6.1.1')
    expect(await findFfmpeg({ shipped: undefined, onPath })).toEqual({ path: onPath, version: '6.1.1' })
    expect(await findFfmpeg({ shipped: undefined, onPath: 'herald-no-such-ffmpeg' })).toBeUndefined()
  })

  it('passes over a shipped binary that does not run', async () => {
    const onPath = fakeFfmpeg('second', '5.0')
    expect(await findFfmpeg({ shipped: fakeFfmpeg('dead', undefined), onPath })).toEqual({
      path: onPath,
      version: '5.0',
    })
    expect(await ffmpegVersion(path.join(dir, 'nothing-here'))).toBeUndefined()
  })

  it('reads HERALD_FFMPEG_PATH and the conversion time limit from the config, and puts ffmpeg on the start line', async () => {
    expect(loadConfig({}).videoConversion).toEqual({
      ffmpegPath: undefined,
      timeoutMs: 600_000,
      concurrency: 2,
    })
    expect(
      loadConfig({
        HERALD_FFMPEG_PATH: '/opt/ffmpeg',
        HERALD_VIDEO_CONVERT_TIMEOUT_MS: '1000',
        HERALD_VIDEO_CONVERT_CONCURRENCY: '1',
      }).videoConversion,
    ).toEqual({ ffmpegPath: '/opt/ffmpeg', timeoutMs: 1000, concurrency: 1 })
    const config = loadConfig({})
    expect(startSummary(config, 'all', 'sqlite').ffmpeg).toBe('none')
    const found = await findFfmpeg()
    expect(startSummary(config, 'all', 'sqlite', describeFfmpeg(found)).ffmpeg).toBe(
      `${shipped} (${found?.version})`,
    )
  })
})
