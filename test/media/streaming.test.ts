import { describe, expect, it } from 'vitest'
import { measureMediaStream } from '../../bench/media-stream.js'

describe('streaming a large video through fetch, probe and upload', () => {
  it('keeps memory bounded: a 64 MB video never sits whole, or even half, in memory', async () => {
    // The first run in a process pays one-time allocations (allocator arenas, stream buffers) of ~30 MB
    // whatever the file size; bench/media-stream.ts reports that cold figure for 256 MB.
    await measureMediaStream(16)
    const result = await measureMediaStream(64)
    expect(result.sizeMb).toBe(64)
    expect(result.peakRssGrowthMb).toBeLessThan(32)
  }, 60_000)
})
