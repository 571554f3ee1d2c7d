// The floors of src/ and the arrows allowed between them (docs/development.md, Tests). `npm run arch` checks them
// (bin/arch.js: dependency-cruiser cannot read TypeScript 7 itself, so it cruises a type-stripped copy of
// src/ whose files keep their paths); `npm test` runs it after the linter. Each rule's comment is what a
// broken rule prints: which arrow is forbidden, and where the code belongs instead.
/** The composition root: the files directly in src/ (app, server, main, cli and the sandbox's mount). */
const compositionRoot = '^src/[^/]+\\.(ts|js)$'

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'browser-scripts-import-only-browser-code-and-core',
      severity: 'error',
      comment:
        'dashboard client -> the server: src/interfaces/dashboard/client/ runs in the browser, bundled by ' +
        'bin/build-assets.js, and imports only itself and the pure rules of src/core/ (npm packages are fine).',
      from: { path: '^src/interfaces/dashboard/client/' },
      to: { path: '^src/', pathNot: '^src/(core|interfaces/dashboard/client)/' },
    },
    {
      name: 'view-scripts-import-only-view-code-and-core',
      severity: 'error',
      comment:
        'MCP Apps view -> the server: src/interfaces/mcp-apps/client/ runs in the host\'s sandboxed frame, ' +
        'bundled by bin/build-assets.js, and imports only itself, the pure rules of src/core/ and the views\' ' +
        'shared definitions (src/interfaces/mcp-apps/views.ts).',
      from: { path: '^src/interfaces/mcp-apps/client/' },
      to: {
        path: '^src/',
        pathNot: ['^src/(core|interfaces/mcp-apps/client)/', '^src/interfaces/mcp-apps/views\\.(ts|js)$'],
      },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment:
        'Two folders import each other (directly or round a loop): arrows between folders only point down, ' +
        'so move the piece one of them needs into the lower floor (core, platform) or into the folder that uses it.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-imports-only-core',
      severity: 'error',
      comment:
        'core -> anything else of Herald: src/core/ holds the pure rules and imports nothing of Herald ' +
        'outside src/core/ (npm packages and node: built-ins are fine).',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'platform-imports-only-core',
      severity: 'error',
      comment:
        'platform -> adapters, modules, interfaces, sandbox or the composition root: src/platform/ ' +
        '(db, egress, crypto, config, logger, clock, ids, errors) imports only src/core/ and itself.',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/(core|platform)/' },
    },
    {
      name: 'adapters-never-import-modules-or-interfaces',
      severity: 'error',
      comment:
        'adapters -> modules or interfaces: a network adapter sits behind the one adapter interface and uses ' +
        'only src/core/ and src/platform/; what a module knows reaches it through its arguments.',
      from: { path: '^src/adapters/' },
      to: { path: '^src/(modules|interfaces)/' },
    },
    {
      name: 'only-the-composition-root-imports-the-sandbox',
      severity: 'error',
      comment:
        'anything but the composition root -> sandbox: only the files directly in src/ (app, server, main, ' +
        'cli, sandbox-mount) may reach the network simulators.',
      from: { path: '^src/', pathNot: ['^src/sandbox/', compositionRoot] },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'sandbox-imports-only-core-and-platform',
      severity: 'error',
      comment:
        'sandbox -> adapters, modules, interfaces or the composition root: the simulators stand in for the ' +
        'networks and import only src/core/ (the networks and their rules) and src/platform/ (clock, form bodies).',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: '^src/(sandbox|core|platform)/' },
    },
    {
      name: 'nothing-below-interfaces-imports-interfaces',
      severity: 'error',
      comment:
        'core, platform, adapters or modules -> interfaces: tools, HTTP, CLI and dashboard sit on top; ' +
        'nothing below them may import them (a page a module needs moves up, or gets its own small kit).',
      from: { path: '^src/(core|platform|adapters|modules)/' },
      to: { path: '^src/interfaces/' },
    },
    {
      name: 'no-floor-imports-the-composition-root',
      severity: 'error',
      comment:
        'a floor -> the composition root: app, server, main, cli and sandbox-mount put the floors together ' +
        'and sit above all of them; what a command or route needs from there is handed to it, or moves down.',
      from: { path: '^src/[^/]+/' },
      to: { path: compositionRoot },
    },
  ],
  options: {
    includeOnly: '^src/',
    moduleSystems: ['es6'],
  },
}
