import { describe, expect, it } from 'vitest'
import { measureVideoConversion, noisy256Mb } from '../../bench/video-convert.js'

/**
 * A 256 MB conversion costs ffmpeg's memory, not Node's: ffmpeg reads and writes the files itself. About
 * 10 s on a quiet machine (bench/video-convert.ts runs the same case for docs/benchmarks.md).
 */
describe('converting a 256 MB video', () => {
  it("keeps Node's peak RSS growth under 64 MB while ffmpeg re-encodes it", async () => {
    const result = await measureVideoConversion(noisy256Mb)
    expect(result.sourceMb).toBeGreaterThanOrEqual(256)
    expect(result.reasons).toContain('MOV (MPEG4) → MP4 (H.264/AAC)')
    expect(result.outputMb).toBeLessThan(result.sourceMb / 2)
    expect(result.nodePeakRssGrowthMb).toBeLessThan(64)
  }, 300_000)
})
