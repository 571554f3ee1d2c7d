import { configDefaults, defineConfig } from 'vitest/config'

/**
 * The `unit` project: pure rules and pure parts, with no server, database, browser, child process or socket
 * (an injected lookup or clock stands in), so it runs in seconds and `npm test` runs it first, stopping there
 * when it fails. A file goes here only when it is pure; everything else, and any new file, is `integration`.
 */
const UNIT = [
  'test/domain/**/*.test.ts',
  'test/config.test.ts',
  'test/connect/connect-config.test.ts',
  'test/dashboard/calendar-days.test.ts',
  'test/dashboard/post-history-words.test.ts',
  'test/dashboard/preview-rules.test.ts',
  'test/media/address-policy.test.ts',
  'test/media/conversion-slots.test.ts',
  'test/media/http-range.test.ts',
  'test/media/link-preview.test.ts',
  'test/media/s3-presign.test.ts',
  'test/media/video-plan.test.ts',
  'test/mcp-apps/error-words.test.ts',
  'test/mcp-apps/view-document.test.ts',
  'test/networks/bluesky-facets.test.ts',
  'test/networks/bluesky-session.test.ts',
  'test/networks/linkedin-settings.test.ts',
  'test/networks/lookup-scan.test.ts',
  'test/networks/web-urls.test.ts',
  'test/platform/logger.test.ts',
  'test/sandbox/web-pages.test.ts',
  'test/webhooks/endpoint-url-refusals.test.ts',
]

export default defineConfig({
  // Shared by both projects (`extends: true`). The include and exclude lists are the projects' own: merged
  // configs concatenate arrays, so a root `include` would put every file into both.
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      // Pure files share nothing a worker could carry from one file to the next, so they share the workers too
      // (about 6 s here instead of 20, most of it spent starting a fork per file).
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT],
        },
      },
    ],
  },
})
